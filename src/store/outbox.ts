// The outbox: an event row and one delivery row per configured endpoint, written inside the
// transition's transaction. The webhook dispatcher sends them after commit; nothing is lost.
import type { Database } from 'bun:sqlite';
import { newId } from '../domain/ids';
import { envelopeHead, envelopeJson, intentBodyJson } from '../domain/intent-json';
import type { EventEnvelope, Mode } from '../domain/intent';
import type { Awaitable, Sync } from './awaitable';
import { configWrites } from './config-writes';

export interface OutboxEvent {
  envelope: EventEnvelope;
  accountId: string;
  mode: Mode;
  /** null for a payment.unmatched event whose payment names no intent. */
  intentId: string | null;
  createdAt: number;
}

export interface Outbox {
  /** Insert the event and its delivery row (if the account has an endpoint). Returns true if a delivery was queued. */
  append(e: OutboxEvent): Awaitable<boolean>;
}

/** Endpoint URLs remembered at most (account and mode pairs; past it, the map starts afresh). */
const MAX_KNOWN = 10_000;

export function createOutbox(sqlite: Database): Sync<Outbox> {
  const insertEvent = sqlite.prepare(
    'INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  // An intent's event: its payload joined here from the envelope's head and the intent's body
  // (intent-json.ts envelopeHead), the same bytes as envelopeJson's text (UTF-8 both ways), but
  // without that ~1.4 KB string made per create for the collector (the body is the 201's text anyway).
  const insertIntentEvent = sqlite.prepare(
    "INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ? || ? || '}', ?)",
  );
  // The delivery row takes its URL from the account's endpoint, read in the same transaction: no
  // row when none is configured. A read then an INSERT ... VALUES, not one INSERT ... SELECT: SQLite
  // runs an INSERT with a SELECT source with a statement journal (each page it touches copied
  // first, ~20k instructions per create once the create has no savepoint); a plain INSERT has none.
  const endpointUrl = sqlite.prepare<{ url: string }, [string, string]>('SELECT url FROM webhook_endpoints WHERE account_id = ? AND mode = ?');
  const insertDelivery = sqlite.prepare(
    `INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, created_at)
     VALUES (?1, ?2, ?3, ?4, ?5, 'pending', 0, ?6, ?6)`,
  );
  // The URLs read (null: no endpoint), per mode and account, while the count of endpoint writes
  // (config-writes.ts: any connection's, read once per group-commit batch) stays where it was when
  // they were read: one read per batch instead of one per append. An endpoint set through this
  // connection forgets them at once (forgetEndpoints).
  const known = knownOf(sqlite);
  const urlOf = (accountId: string, mode: Mode): string | null => {
    const n = configWrites(sqlite);
    if (n !== known.seen) {
      known.seen = n;
      known.live.clear();
      known.test.clear();
    }
    const byAccount = mode === 'live' ? known.live : known.test;
    let url = byAccount.get(accountId);
    if (url === undefined) {
      url = endpointUrl.get(accountId, mode)?.url ?? null;
      if (byAccount.size >= MAX_KNOWN) byAccount.clear();
      byAccount.set(accountId, url);
    }
    return url;
  };
  return {
    append(e) {
      const v = e.envelope;
      if ('intent' in v.data) insertIntentEvent.run(v.eventId, e.accountId, e.mode, e.intentId, v.type, envelopeHead(v), intentBodyJson(v.data.intent), e.createdAt);
      else insertEvent.run(v.eventId, e.accountId, e.mode, e.intentId, v.type, envelopeJson(v), e.createdAt);
      const url = urlOf(e.accountId, e.mode);
      if (url === null) return false;
      insertDelivery.run(newId('whd'), e.envelope.eventId, e.accountId, e.mode, url, e.createdAt);
      return true;
    },
  };
}

interface KnownUrls {
  /** The count of endpoint writes these were read at (NaN: none yet). */
  seen: number;
  live: Map<string, string | null>;
  test: Map<string, string | null>;
}
// Per connection (every outbox made on it shares them, so forgetEndpoints reaches them all).
const knownUrls = new WeakMap<Database, KnownUrls>();

function knownOf(sqlite: Database): KnownUrls {
  let k = knownUrls.get(sqlite);
  if (!k) {
    k = { seen: Number.NaN, live: new Map(), test: new Map() };
    knownUrls.set(sqlite, k);
  }
  return k;
}

/** Forget the remembered endpoint URLs of this connection: its own write may have changed one. */
export function forgetEndpoints(sqlite: Database): void {
  const k = knownUrls.get(sqlite);
  if (!k) return;
  k.seen = Number.NaN;
  k.live.clear();
  k.test.clear();
}
