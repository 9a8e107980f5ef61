// Replaying events to an endpoint on PostgreSQL, as ../event-replay.ts: one new delivery per
// event of the account and mode created since `since`, oldest first, in one statement.
import { newId } from '../../domain/ids';
import type { ReplayInput } from '../event-replay';
import { type Pg, rows } from './sql';

/** Queue a delivery of every event since `since` to `url`; returns how many were queued. */
export async function queueReplay(q: Pg, input: ReplayInput): Promise<number> {
  const ids = await rows<{ id: string }>(q, 'SELECT id FROM events WHERE account_id = $1 AND mode = $2 AND created_at >= $3 ORDER BY seq', [
    input.accountId, input.mode, input.since,
  ]);
  if (ids.length === 0) return 0;
  // Inserted in the events' order (WITH ORDINALITY), so the deliveries' seqs follow it too.
  await q.unsafe(
    `INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, created_at)
     SELECT r.id, r.event_id, $3, $4, $5, 'pending', 0, $6::bigint, $6::bigint
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(id, event_id, n) ORDER BY r.n`,
    [ids.map(() => newId('whd')), ids.map((r) => r.id), input.accountId, input.mode, input.url, input.now],
  );
  return ids.length;
}
