// Test factory for the webhook tests: a fresh real SQLite (real migrations), accounts,
// endpoints, and events + outbox rows written the way the lifecycle runtime writes them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG, type Config } from '../../src/config.types';
import { newId } from '../../src/domain/ids';
import type { EventEnvelope, EventType, Mode, PaymentIntentWire } from '../../src/domain/intent';
import { openDb, type Db } from '../../src/store/db';
import { createRepos } from '../../src/store/repos';
import { createDispatchStore } from '../../src/store/webhook-dispatch';
import type { DispatcherDeps } from '../../src/webhooks/dispatcher';
import { webhookServices, type WebhookServices } from '../../src/webhooks/services';
import { newSecret } from '../../src/webhooks/sign';
import type { NeutralDb } from './neutral-db';
import { statesTagged } from '../../machines/judge';

// The store's state lists, as test/support/test-store.ts has them: not imported from there, because
// it loads the PostgreSQL harness (whose afterAll needs a vitest suite) and bench/webhooks imports
// this file outside vitest.
const STORE_STATES = { live: statesTagged('live'), watching: statesTagged('watching') };

export function tempDb(): Db & { dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'pf-webhooks-'));
  const db = openDb(join(dir, 'pf.db'));
  return { ...db, dispose: () => (db.close(), rmSync(dir, { recursive: true, force: true })) };
}

export function testConfig(webhooks: Partial<Config['webhooks']> = {}): Config {
  return {
    ...DEFAULT_CONFIG,
    webhooks: { ...DEFAULT_CONFIG.webhooks, pollIntervalMs: 20, timeoutMs: 2000, leaseMs: 5000, ...webhooks },
  };
}

/** What a dispatcher on this database is handed (as compose.ts builds it from the Store). */
export function dispatchDeps(db: Db, config: Config): DispatcherDeps {
  return { dispatch: createDispatchStore(db), durable: () => db.durable(), config };
}

/** What the webhook verbs are handed, on this database; `extra` pins the clock or the DNS. */
export function services(db: Db | NeutralDb, config: Config = testConfig(), extra: Pick<WebhookServices, 'now' | 'lookup'> = {}): WebhookServices {
  return { ...webhookServices('repos' in db ? db.repos : createRepos(db, STORE_STATES), config), ...extra };
}

export function createAccount(db: Db, plan: 'free' | 'pro' = 'pro'): string {
  const id = newId('acct');
  db.sqlite.query('INSERT INTO accounts (id, name, plan, created_at) VALUES (?, ?, ?, ?)').run(id, id, plan, Date.now());
  return id;
}

/** An endpoint row written directly, bypassing the URL policy (tests of the send-time check). */
export function putEndpoint(
  db: Db,
  e: { accountId: string; mode: Mode; url: string; secret?: string; previousSecret?: string; previousSecretExpiresAt?: number },
): string {
  const secret = e.secret ?? newSecret();
  db.sqlite
    .query(
      `INSERT OR REPLACE INTO webhook_endpoints (account_id, mode, url, secret, previous_secret, previous_secret_expires_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(e.accountId, e.mode, e.url, secret, e.previousSecret ?? null, e.previousSecretExpiresAt ?? null, Date.now(), Date.now());
  return secret;
}

export function intentWire(mode: Mode, over: Partial<PaymentIntentWire> = {}): PaymentIntentWire {
  const t = new Date().toISOString();
  return {
    id: newId('pi'), chain: 'eip155:84532', token: 'USDC', amount: '1.5', requestor: '0x' + '11'.repeat(20),
    direction: 'request', state: 'created', reference: null, expiresAt: t, createdAt: t, updatedAt: t,
    livemode: mode === 'live', idempotencyKey: null, tokenAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    amountBaseUnits: '1500000', fulfiller: null, retryRequired: false, pendingAtExpiry: false, txSignature: null,
    detectedAt: null, ataRentLamports: null, ttlSeconds: 900, confirmedAt: null, finalizedAt: null,
    metadata: {}, refundedBy: null, refundOf: null, refunds: [], failureReason: null, solanaReference: null,
    paymentUri: 'ethereum:0x036CbD53842c5426634e7929541eC2318f3dCF7e@84532/transfer?address=0x' + '11'.repeat(20) + '&uint256=1500000',
    latePayment: null, payToken: null, payUrl: null, ...over,
  };
}

export interface InsertedEvent {
  eventId: string;
  payload: string;
  envelope: EventEnvelope;
}

/** One `events` row whose payload is the exact envelope string (the bytes that get signed). */
export function insertEvent(db: Db, e: { accountId: string; mode: Mode; type?: EventType; createdAt?: number }): InsertedEvent {
  const createdAt = e.createdAt ?? Date.now();
  const intent = intentWire(e.mode);
  const envelope: EventEnvelope = {
    eventId: newId('evt'), type: e.type ?? 'intent.created', createdAt: new Date(createdAt).toISOString(),
    livemode: e.mode === 'live', data: { intent },
  };
  const payload = JSON.stringify(envelope);
  db.sqlite
    .query('INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(envelope.eventId, e.accountId, e.mode, intent.id, envelope.type, payload, createdAt);
  return { eventId: envelope.eventId, payload, envelope };
}

/** One outbox row, as the runtime writes it: pending, 0 attempts, due now, no lease. */
export function insertDelivery(
  db: Db,
  d: { eventId: string; accountId: string; mode: Mode; url: string; nextAttemptAt?: number; leaseUntil?: number | null; createdAt?: number },
): string {
  const id = newId('whd');
  const now = d.createdAt ?? Date.now();
  db.sqlite
    .query(
      `INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, lease_until, created_at)
       VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
    )
    .run(id, d.eventId, d.accountId, d.mode, d.url, d.nextAttemptAt ?? now, d.leaseUntil ?? null, now);
  return id;
}

/** A transition's outbox write: the event plus a delivery to the account's current endpoint. */
export function emit(db: Db, e: { accountId: string; mode: Mode; type?: EventType }): InsertedEvent & { deliveryId: string } {
  const endpoint = db.sqlite
    .query<{ url: string }, [string, string]>('SELECT url FROM webhook_endpoints WHERE account_id = ? AND mode = ?')
    .get(e.accountId, e.mode);
  if (!endpoint) throw new Error('emit: no endpoint');
  return db.sqlite.transaction(() => {
    const ev = insertEvent(db, e);
    return { ...ev, deliveryId: insertDelivery(db, { eventId: ev.eventId, accountId: e.accountId, mode: e.mode, url: endpoint.url }) };
  })();
}

export interface DeliveryRow {
  id: string; status: string; attemptCount: number; nextAttemptAt: number; leaseUntil: number | null;
  responseStatus: number | null; lastError: string | null; lastAttemptedAt: number | null;
  deliveredAt: number | null; failedAt: number | null; url: string; eventId: string;
}

export function deliveryRow(db: Db, id: string): DeliveryRow {
  const r = db.sqlite
    .query<DeliveryRow, [string]>(
      `SELECT id, status, attempt_count AS attemptCount, next_attempt_at AS nextAttemptAt, lease_until AS leaseUntil,
              response_status AS responseStatus, last_error AS lastError, last_attempted_at AS lastAttemptedAt,
              delivered_at AS deliveredAt, failed_at AS failedAt, url, event_id AS eventId
         FROM webhook_deliveries WHERE id = ?`,
    )
    .get(id);
  if (!r) throw new Error(`no delivery ${id}`);
  return r;
}

/** Poll the DB until `pred` holds (state reached by the dispatcher), or fail after timeoutMs. */
export async function until<T>(read: () => T, pred: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = read();
    if (pred(v)) return v;
    if (Date.now() > end) throw new Error(`until: condition not met after ${timeoutMs} ms; last value ${JSON.stringify(v)}`);
    await Bun.sleep(10);
  }
}
