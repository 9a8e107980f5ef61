// The operator's counts of intents per account on PostgreSQL, as ../intents-overview.ts.
import type { IntentsOverviewRepo } from '../intents-overview';
import { type Async, num, type Pg, rows } from './sql';

export async function intentCountsByAccount(q: Pg): Promise<Map<string, number>> {
  const list = await rows<{ accountId: string; n: string }>(q, 'SELECT account_id AS "accountId", COUNT(*) AS n FROM intents GROUP BY account_id');
  return new Map(list.map((r) => [r.accountId, num(r.n)]));
}

export function createPgIntentsOverviewRepo(q: Pg): Async<IntentsOverviewRepo> {
  return { countsByAccount: () => intentCountsByAccount(q) };
}
