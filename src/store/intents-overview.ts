// The operator's counts of intents across every account (the dashboard's accounts page). Its
// list of intents is the API's verb as the operator (src/intents/list-intents.ts).
import type { Db } from './db';
import type { Awaitable, Sync } from './awaitable';

/** How many intents each account has (accounts without any are absent). */
export function intentCountsByAccount(db: Db): Map<string, number> {
  const rows = db.sqlite
    .query<{ accountId: string; n: number }, []>('SELECT account_id AS accountId, COUNT(*) AS n FROM intents GROUP BY account_id')
    .all();
  return new Map(rows.map((r) => [r.accountId, r.n]));
}

/** The operator's count of intents per account. */
export interface IntentsOverviewRepo {
  countsByAccount(): Awaitable<Map<string, number>>;
}

export function createIntentsOverviewRepo(db: Db): Sync<IntentsOverviewRepo> {
  return { countsByAccount: () => intentCountsByAccount(db) };
}
