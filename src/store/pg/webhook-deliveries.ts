// Webhook delivery rows on PostgreSQL as the API, the dashboard and metrics read them, and a
// retry queued as a new row, as ../webhook-deliveries.ts.
import type { Mode } from '../../domain/intent';
import type { DeliveryFilter, DeliveryListRow, DeliveryRecord, DeliveryRepo } from '../webhook-deliveries';
import { type Async, first, hasNul, num, numbers, type Pg, rows } from './sql';
import { queueReplay } from './event-replay';

const columns = (t: string) => `${t}seq, ${t}id, ${t}event_id AS "eventId", ${t}url, ${t}status, ${t}response_status AS "responseStatus",
  ${t}attempt_count AS "attemptCount", ${t}last_attempted_at AS "lastAttemptedAt", ${t}next_attempt_at AS "nextAttemptAt",
  ${t}last_error AS "lastError", ${t}delivered_at AS "deliveredAt", ${t}failed_at AS "failedAt", ${t}created_at AS "createdAt"`;
const NUMERIC = ['seq', 'responseStatus', 'attemptCount', 'lastAttemptedAt', 'nextAttemptAt', 'deliveredAt', 'failedAt', 'createdAt'];

export async function getDeliveryRecord(q: Pg, id: string): Promise<DeliveryRecord | null> {
  return numbers<DeliveryRecord>(await rows(q, `SELECT ${columns('')} FROM webhook_deliveries WHERE id = $1`, [id]), NUMERIC)[0] ?? null;
}

export async function deliverySeq(q: Pg, id: string, accountId?: string, mode?: Mode): Promise<number | null> {
  const r = await first<{ seq: string }>(
    q,
    'SELECT seq FROM webhook_deliveries WHERE id = $1 AND account_id = coalesce($2, account_id) AND mode = coalesce($3, mode)',
    [id, accountId ?? null, mode ?? null],
  );
  return r ? num(r.seq) : null;
}

/** Newest first by seq, filtered, at most `limit`, each with its owner and its event. */
export async function listDeliveryRows(q: Pg, f: DeliveryFilter, limit: number): Promise<DeliveryListRow[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  const add = (clause: string, v: unknown) => (args.push(v), where.push(`${clause} $${args.length}`));
  if (f.accountId !== undefined) add('d.account_id =', f.accountId);
  if (f.mode !== undefined) add('d.mode =', f.mode);
  if (f.status !== undefined) add('d.status =', f.status);
  if (f.beforeSeq !== undefined) add('d.seq <', f.beforeSeq);
  args.push(limit);
  const list = await rows(
    q,
    `SELECT ${columns('d.')}, d.account_id AS "accountId", d.mode AS mode, e.type AS "eventType", e.intent_id AS "intentId"
       FROM webhook_deliveries d LEFT JOIN events e ON e.id = d.event_id
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY d.seq DESC LIMIT $${args.length}`,
    args,
  );
  return numbers<DeliveryListRow>(list, NUMERIC);
}

export async function deliveryOwner(q: Pg, id: string): Promise<{ accountId: string; mode: Mode } | null> {
  return first(q, 'SELECT account_id AS "accountId", mode FROM webhook_deliveries WHERE id = $1', [id]);
}

/** Deliveries waiting to be sent (the metrics backlog gauge). */
export async function countPendingDeliveries(q: Pg): Promise<number> {
  return num((await first<{ n: string }>(q, "SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'"))?.n ?? 0);
}

export type RetryInput = { id: string; deliveryId: string; accountId: string; mode: Mode; now: number };

/**
 * Queue delivery `id` of the event of delivery `deliveryId` (if it is this account's and mode's)
 * to the account's current endpoint URL, due `now`. One statement, so the original, the
 * endpoint and the insert are read and written at one snapshot. Returns why not, when not.
 */
export async function queueDeliveryRetry(q: Pg, input: RetryInput): Promise<'queued' | 'not_found' | 'no_endpoint'> {
  if (hasNul([input.deliveryId])) return 'not_found';
  const r = await first<{ original: boolean; endpoint: boolean }>(
    q,
    `WITH o AS (SELECT event_id FROM webhook_deliveries WHERE id = $2 AND account_id = $3 AND mode = $4),
          ep AS (SELECT url FROM webhook_endpoints WHERE account_id = $3 AND mode = $4),
          ins AS (
            INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, lease_until, created_at)
            SELECT $1, o.event_id, $3, $4, ep.url, 'pending', 0, $5::bigint, NULL, $5::bigint FROM o, ep RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM o) AS original, EXISTS (SELECT 1 FROM ep) AS endpoint, (SELECT count(*) FROM ins) AS n`,
    [input.id, input.deliveryId, input.accountId, input.mode, input.now],
  );
  if (!r!.original) return 'not_found';
  if (!r!.endpoint) return 'no_endpoint';
  return 'queued';
}

export function createPgDeliveryRepo(q: Pg): Async<DeliveryRepo> & { countPending(): Promise<number> } {
  return {
    countPending: () => countPendingDeliveries(q),
    get: (id) => getDeliveryRecord(q, id),
    list: (f, limit) => listDeliveryRows(q, f, limit),
    seqOf: (id, accountId, mode) => deliverySeq(q, id, accountId, mode),
    owner: (id) => deliveryOwner(q, id),
    queueRetry: (input) => queueDeliveryRetry(q, input),
    queueReplay: (input) => queueReplay(q, input),
  };
}
