// Read-only queries for the operator's pages: across all accounts, newest first. Raw prepared
// statements on the server's connection; nothing here writes.
import type { Db } from '../store/db';
import type { IntentState, Mode } from '../domain/intent';
import type { DeliveryRecord } from '../webhooks/delivery-wire';
import { DELIVERY_COLUMNS } from '../webhooks/delivery-wire';

export const PAGE_SIZE = 50;

export interface IntentListRow {
  seq: number;
  id: string;
  accountId: string;
  mode: Mode;
  chain: string;
  token: string;
  decimals: number;
  amountBaseUnits: string;
  state: IntentState;
  reference: string | null;
  createdAt: number;
}

export interface IntentFilter {
  state?: IntentState;
  accountId?: string;
  mode?: Mode;
  /** Older than this seq (next page). */
  beforeSeq?: number;
}

/** Newest first; one row more than a page tells whether there is a next one. */
export function listIntents(db: Db, f: IntentFilter): { rows: IntentListRow[]; hasMore: boolean } {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (f.state) (where.push('state = ?'), args.push(f.state));
  if (f.accountId) (where.push('account_id = ?'), args.push(f.accountId));
  if (f.mode) (where.push('mode = ?'), args.push(f.mode));
  if (f.beforeSeq !== undefined) (where.push('seq < ?'), args.push(f.beforeSeq));
  const rows = db.sqlite
    .query<IntentListRow, (string | number)[]>(
      `SELECT seq, id, account_id AS accountId, mode, chain, token, decimals, amount_base_units AS amountBaseUnits, state,
              reference, created_at AS createdAt
         FROM intents ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`,
    )
    .all(...args, PAGE_SIZE + 1);
  return { rows: rows.slice(0, PAGE_SIZE), hasMore: rows.length > PAGE_SIZE };
}

export interface TimelineEvent {
  id: string;
  type: string;
  createdAt: number;
  /** The intent's state right after this event (from the stored envelope). */
  state: string | null;
  deliveries: number;
  delivered: number;
}

export function intentTimeline(db: Db, intentId: string): TimelineEvent[] {
  const rows = db.sqlite
    .query<{ id: string; type: string; createdAt: number; payload: string; deliveries: number; delivered: number }, [string]>(
      `SELECT e.id, e.type, e.created_at AS createdAt, e.payload,
              (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries,
              (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'delivered') AS delivered
         FROM events e WHERE e.intent_id = ? ORDER BY e.seq`,
    )
    .all(intentId);
  return rows.map((r) => {
    let state: string | null = null;
    try {
      const p = JSON.parse(r.payload) as { data?: { intent?: { state?: unknown } } };
      state = typeof p.data?.intent?.state === 'string' ? p.data.intent.state : null;
    } catch {
      /* a payload is always JSON; stay quiet if not */
    }
    return { id: r.id, type: r.type, createdAt: r.createdAt, state, deliveries: r.deliveries, delivered: r.delivered };
  });
}

export interface DeliveryListRow extends DeliveryRecord {
  accountId: string;
  mode: Mode;
  eventType: string | null;
  intentId: string | null;
}

export interface DeliveryFilter {
  status?: 'pending' | 'delivered' | 'failed';
  accountId?: string;
  beforeSeq?: number;
}

export function listAllDeliveries(db: Db, f: DeliveryFilter): { rows: DeliveryListRow[]; hasMore: boolean } {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (f.status) (where.push('d.status = ?'), args.push(f.status));
  if (f.accountId) (where.push('d.account_id = ?'), args.push(f.accountId));
  if (f.beforeSeq !== undefined) (where.push('d.seq < ?'), args.push(f.beforeSeq));
  const cols = DELIVERY_COLUMNS.split(',')
    .map((c) => `d.${c.trim()}`)
    .join(', ');
  const rows = db.sqlite
    .query<DeliveryListRow, (string | number)[]>(
      `SELECT ${cols}, d.account_id AS accountId, d.mode AS mode, e.type AS eventType, e.intent_id AS intentId
         FROM webhook_deliveries d LEFT JOIN events e ON e.id = d.event_id
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY d.seq DESC LIMIT ?`,
    )
    .all(...args, PAGE_SIZE + 1);
  return { rows: rows.slice(0, PAGE_SIZE), hasMore: rows.length > PAGE_SIZE };
}

export function deliveryOwner(db: Db, id: string): { accountId: string; mode: Mode } | null {
  return db.sqlite
    .query<{ accountId: string; mode: Mode }, [string]>('SELECT account_id AS accountId, mode FROM webhook_deliveries WHERE id = ?')
    .get(id);
}

export interface EndpointInfo {
  mode: Mode;
  url: string;
  updatedAt: number;
  rotating: boolean;
}

/** An account's endpoints without their secrets (those are read only when revealed). */
export function endpointsOf(db: Db, accountId: string, now = Date.now()): EndpointInfo[] {
  return db.sqlite
    .query<{ mode: Mode; url: string; updatedAt: number; prevExp: number | null }, [string]>(
      `SELECT mode, url, updated_at AS updatedAt, previous_secret_expires_at AS prevExp
         FROM webhook_endpoints WHERE account_id = ? ORDER BY mode`,
    )
    .all(accountId)
    .map((r) => ({ mode: r.mode, url: r.url, updatedAt: r.updatedAt, rotating: r.prevExp !== null && r.prevExp > now }));
}

export function intentCounts(db: Db): Map<string, number> {
  const rows = db.sqlite.query<{ accountId: string; n: number }, []>('SELECT account_id AS accountId, COUNT(*) AS n FROM intents GROUP BY account_id').all();
  return new Map(rows.map((r) => [r.accountId, r.n]));
}

export function keyOwner(db: Db, keyId: string): string | null {
  return db.sqlite.query<{ accountId: string }, [string]>('SELECT account_id AS accountId FROM api_keys WHERE id = ?').get(keyId)?.accountId ?? null;
}
