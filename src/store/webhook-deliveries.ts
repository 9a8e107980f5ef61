// Webhook delivery rows as the API, the dashboard and metrics read them, and the one write
// outside the dispatcher: a retry queued as a new row. The dispatcher's own statements are in
// webhook-dispatch.ts; the outbox and replays insert rows in outbox.ts and event-replay.ts.
import type { Mode } from '../domain/intent';
import type { Db } from './db';
import type { Awaitable, Sync } from './awaitable';
import { queueReplay, type ReplayInput } from './event-replay';

export interface DeliveryRecord {
  seq: number;
  id: string;
  eventId: string;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  responseStatus: number | null;
  attemptCount: number;
  lastAttemptedAt: number | null;
  nextAttemptAt: number;
  lastError: string | null;
  deliveredAt: number | null;
  failedAt: number | null;
  createdAt: number;
}

/** A delivery as the operator's list shows it: with its owner and its event. */
export interface DeliveryListRow extends DeliveryRecord {
  accountId: string;
  mode: Mode;
  eventType: string | null;
  intentId: string | null;
}

/** Absent fields do not narrow: an API caller gives its account and mode, the operator may give neither. */
export interface DeliveryFilter {
  status?: DeliveryRecord['status'];
  accountId?: string;
  mode?: Mode;
  /** Older than this seq (next page). */
  beforeSeq?: number;
}

const columns = (t: string) => `${t}seq, ${t}id, ${t}event_id AS eventId, ${t}url, ${t}status, ${t}response_status AS responseStatus,
  ${t}attempt_count AS attemptCount, ${t}last_attempted_at AS lastAttemptedAt, ${t}next_attempt_at AS nextAttemptAt,
  ${t}last_error AS lastError, ${t}delivered_at AS deliveredAt, ${t}failed_at AS failedAt, ${t}created_at AS createdAt`;

export function getDeliveryRecord(db: Db, id: string): DeliveryRecord | null {
  return db.sqlite.query<DeliveryRecord, [string]>(`SELECT ${columns('')} FROM webhook_deliveries WHERE id = ?`).get(id);
}

/** The seq of a delivery of this account and mode (any, when absent), a page cursor; or null. */
export function deliverySeq(db: Db, id: string, accountId?: string, mode?: Mode): number | null {
  return (
    db.sqlite
      .query<{ seq: number }, [string, string | null, string | null]>(
        'SELECT seq FROM webhook_deliveries WHERE id = ?1 AND account_id = coalesce(?2, account_id) AND mode = coalesce(?3, mode)',
      )
      .get(id, accountId ?? null, mode ?? null)?.seq ?? null
  );
}

/**
 * Deliveries newest first (seq is insertion order: no tie on equal ms), filtered, at most `limit`,
 * each with its owner and its event: one query for the API's list and the operator's.
 */
export function listDeliveryRows(db: Db, f: DeliveryFilter, limit: number): DeliveryListRow[] {
  const where: string[] = [];
  const args: (string | number)[] = [];
  const add = (clause: string, value: string | number) => {
    where.push(clause);
    args.push(value);
  };
  if (f.accountId !== undefined) add('d.account_id = ?', f.accountId);
  if (f.mode !== undefined) add('d.mode = ?', f.mode);
  if (f.status !== undefined) add('d.status = ?', f.status);
  if (f.beforeSeq !== undefined) add('d.seq < ?', f.beforeSeq);
  return db.sqlite
    .query<DeliveryListRow, (string | number)[]>(
      `SELECT ${columns('d.')}, d.account_id AS accountId, d.mode AS mode, e.type AS eventType, e.intent_id AS intentId
         FROM webhook_deliveries d LEFT JOIN events e ON e.id = d.event_id
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY d.seq DESC LIMIT ?`,
    )
    .all(...args, limit);
}

export function deliveryOwner(db: Db, id: string): { accountId: string; mode: Mode } | null {
  return db.sqlite
    .query<{ accountId: string; mode: Mode }, [string]>('SELECT account_id AS accountId, mode FROM webhook_deliveries WHERE id = ?')
    .get(id);
}

/** Deliveries waiting to be sent (the metrics backlog gauge). */
export function countPendingDeliveries(db: Db): number {
  return db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'").get()?.n ?? 0;
}

/**
 * Queue delivery `id` of the event of delivery `deliveryId` (if it belongs to this account and
 * mode) to the account's current endpoint URL, due `now`. One transaction: the endpoint read and
 * the insert see the same state. Returns why not, when not.
 */
export function queueDeliveryRetry(
  db: Db,
  input: { id: string; deliveryId: string; accountId: string; mode: Mode; now: number },
): 'queued' | 'not_found' | 'no_endpoint' {
  const { id, accountId, mode, now } = input;
  return db.sqlite
    .transaction(() => {
      const original = db.sqlite
        .query<{ eventId: string }, [string, string, string]>(
          'SELECT event_id AS eventId FROM webhook_deliveries WHERE id = ? AND account_id = ? AND mode = ?',
        )
        .get(input.deliveryId, accountId, mode);
      if (!original) return 'not_found' as const;
      const endpoint = db.sqlite
        .query<{ url: string }, [string, string]>('SELECT url FROM webhook_endpoints WHERE account_id = ? AND mode = ?')
        .get(accountId, mode);
      if (!endpoint) return 'no_endpoint' as const;
      db.sqlite
        .query(
          `INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, lease_until, created_at)
           VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, NULL, ?)`,
        )
        .run(id, original.eventId, accountId, mode, endpoint.url, now, now);
      return 'queued' as const;
    })
    .immediate();
}

/** The webhook deliveries aggregate as the read side and the retry verb see it (the dispatcher has its own, webhook-dispatch.ts). */
export interface DeliveryRepo {
  get(id: string): Awaitable<DeliveryRecord | null>;
  /** Newest first, filtered (one account and mode for the API; any for the operator). */
  list(f: DeliveryFilter, limit: number): Awaitable<DeliveryListRow[]>;
  /** A delivery's seq (a page cursor) when it is of this account and mode (any, when absent). */
  seqOf(id: string, accountId?: string, mode?: Mode): Awaitable<number | null>;
  owner(id: string): Awaitable<{ accountId: string; mode: Mode } | null>;
  queueRetry(input: Parameters<typeof queueDeliveryRetry>[1]): Awaitable<ReturnType<typeof queueDeliveryRetry>>;
  /** Deliveries waiting to be sent (metrics). */
  countPending(): Awaitable<number>;
  /** Queue a delivery of every event since `since` to `url` (event-replay.ts); returns how many. */
  queueReplay(input: ReplayInput): Awaitable<number>;
}

export function createDeliveryRepo(db: Db): Sync<DeliveryRepo> {
  return {
    get: (id) => getDeliveryRecord(db, id),
    list: (f, limit) => listDeliveryRows(db, f, limit),
    seqOf: (id, accountId, mode) => deliverySeq(db, id, accountId, mode),
    owner: (id) => deliveryOwner(db, id),
    queueRetry: (input) => queueDeliveryRetry(db, input),
    countPending: () => countPendingDeliveries(db),
    queueReplay: (input) => queueReplay(db, input),
  };
}
