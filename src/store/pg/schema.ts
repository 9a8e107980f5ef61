// The PostgreSQL schema (drizzle pg-core): src/store/schema.ts table by table, the same table,
// column and index names (test/store/pg/schema-parity.test.ts keeps them from drifting), so the
// meaning of each column and the query behind each index are documented there once.
// drizzle-kit (drizzle.pg.config.ts) turns changes into append-only migrations in drizzle-pg/.
//
// Types: times are integer milliseconds (BIGINT read back as a JS number); amounts stay decimal
// TEXT (18-decimal tokens need more than 64 bits, and TEXT reads back as the same string);
// JSON stays TEXT because some of it is signed or compared as bytes (event payloads, snapshots)
// and jsonb would rewrite it; insertion-order `seq` columns are identity columns (cursors).

import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });
const seq = () => bigint('seq', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity();
const mode = () => text('mode', { enum: ['test', 'live'] }).notNull();

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  plan: text('plan', { enum: ['free', 'pro'] }).notNull(),
  createdAt: ms('created_at').notNull(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    mode: mode(),
    hash: text('hash').notNull(),
    last4: text('last4').notNull(),
    createdAt: ms('created_at').notNull(),
    revokedAt: ms('revoked_at'),
    lastUsedAt: ms('last_used_at'),
  },
  (t) => [uniqueIndex('api_keys_hash').on(t.hash), index('api_keys_account').on(t.accountId)],
);

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    mode: mode(),
    url: text('url').notNull(),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: ms('previous_secret_expires_at'),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.mode] })],
);

export const intents = pgTable(
  'intents',
  {
    seq: seq(),
    id: text('id').notNull(),
    accountId: text('account_id').notNull(),
    mode: mode(),
    chain: text('chain').notNull(),
    token: text('token').notNull(),
    tokenAddress: text('token_address').notNull(),
    decimals: integer('decimals').notNull(),
    amountBaseUnits: text('amount_base_units').notNull(),
    requestor: text('requestor').notNull(),
    fulfiller: text('fulfiller'),
    direction: text('direction').notNull(),
    state: text('state').notNull(),
    reference: text('reference'),
    metadata: text('metadata').notNull(),
    idempotencyKey: text('idempotency_key'),
    ttlSeconds: integer('ttl_seconds').notNull(),
    expiresAt: ms('expires_at').notNull(),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
    retryRequired: boolean('retry_required').notNull(),
    pendingAtExpiry: boolean('pending_at_expiry').notNull(),
    txSignature: text('tx_signature'),
    detectedAt: ms('detected_at'),
    ataRentLamports: bigint('ata_rent_lamports', { mode: 'number' }),
    confirmedAt: ms('confirmed_at'),
    finalizedAt: ms('finalized_at'),
    failureReason: text('failure_reason'),
    refundedBy: text('refunded_by'),
    refundOf: text('refund_of'),
    refunds: text('refunds').notNull().default('[]'),
    buildData: text('build_data'),
    signedTransaction: text('signed_transaction'),
    watchData: text('watch_data'),
    snapshot: text('snapshot').notNull(),
    machineVersion: integer('machine_version').notNull(),
    solanaReference: text('solana_reference'),
    latePayment: text('late_payment'),
    payToken: text('pay_token'),
  },
  // The same indexes as SQLite, partial ones included (each one's query: src/store/schema.ts).
  (t) => [
    uniqueIndex('intents_id').on(t.id),
    index('intents_account_list').on(t.accountId, t.mode, t.seq),
    index('intents_account_state').on(t.accountId, t.mode, t.state, t.seq),
    index('intents_account_reference').on(t.accountId, t.mode, t.reference).where(sql`reference IS NOT NULL`),
    index('intents_live')
      .on(t.chain, t.requestor, t.tokenAddress, t.createdAt, t.state)
      .where(sql`state IN ('created','pending','confirmed','dropped')`),
    index('intents_live_tx')
      .on(t.chain, t.txSignature, t.state)
      .where(sql`tx_signature IS NOT NULL AND state IN ('created','pending','confirmed','dropped')`),
    uniqueIndex('intents_tx_signature').on(t.chain, t.txSignature).where(sql`tx_signature IS NOT NULL`),
    uniqueIndex('intents_solana_reference').on(t.solanaReference).where(sql`solana_reference IS NOT NULL`),
    uniqueIndex('intents_pay_token').on(t.payToken).where(sql`pay_token IS NOT NULL`),
    index('intents_receiver').on(t.chain, t.requestor, t.tokenAddress),
    index('intents_live_exact')
      .on(t.chain, t.requestor, t.tokenAddress, t.amountBaseUnits)
      .where(sql`state IN ('created','pending','confirmed','dropped')`),
    index('intents_chain_updated')
      .on(t.chain, t.updatedAt, t.requestor, t.tokenAddress, t.createdAt, t.state)
      .where(sql`state NOT IN ('created','pending','confirmed','dropped')`),
    index('intents_closed_unfinalized_tx')
      .on(t.chain, t.updatedAt)
      .where(sql`state NOT IN ('created','pending','confirmed','dropped') AND tx_signature IS NOT NULL AND finalized_at IS NULL`),
  ],
);

export const submissions = pgTable(
  'submissions',
  {
    seq: seq(),
    intentId: text('intent_id').notNull(),
    chain: text('chain').notNull(),
    txSignature: text('tx_signature').notNull(),
    signer: text('signer').notNull(),
    signedTransaction: text('signed_transaction'),
    watchData: text('watch_data'),
    source: text('source', { enum: ['submit', 'txid', 'detected'] }).notNull(),
    status: text('status', { enum: ['sending', 'sent', 'rejected'] }).notNull(),
    outcome: text('outcome', { enum: ['landed', 'failed', 'dropped'] }),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('submissions_tx').on(t.chain, t.txSignature),
    index('submissions_intent').on(t.intentId, t.seq),
    index('submissions_open').on(t.status).where(sql`outcome IS NULL`),
  ],
);

export const payments = pgTable(
  'payments',
  {
    seq: seq(),
    id: text('id').notNull(),
    accountId: text('account_id').notNull(),
    mode: mode(),
    chain: text('chain').notNull(),
    token: text('token').notNull(),
    tokenAddress: text('token_address').notNull(),
    decimals: integer('decimals').notNull(),
    amountBaseUnits: text('amount_base_units').notNull(),
    fromAddress: text('from_address').notNull(),
    toAddress: text('to_address').notNull(),
    txSignature: text('tx_signature').notNull(),
    intentId: text('intent_id'),
    status: text('status', { enum: ['matched', 'late', 'unmatched'] }).notNull(),
    reason: text('reason', {
      enum: ['intent_closed', 'amount_mismatch', 'ambiguous', 'duplicate', 'no_open_intent', 'sanctions_match'],
    }),
    detectedAt: ms('detected_at').notNull(),
  },
  (t) => [
    uniqueIndex('payments_id').on(t.id),
    uniqueIndex('payments_tx').on(t.chain, t.txSignature),
    index('payments_account').on(t.accountId, t.mode, t.seq),
    index('payments_intent').on(t.intentId),
    // The detectors' unfinalized matches (detection.ts): the ambiguous payments of a chain, read
    // every poll. Few rows (a transfer several open intents could take); the matched ones are
    // reached from the live intents instead, so no poll reads every payment of the chain.
    index('payments_ambiguous').on(t.chain).where(sql`reason = 'ambiguous'`),
  ],
);

export const chainCursors = pgTable(
  'chain_cursors',
  {
    chain: text('chain').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.chain, t.key] })],
);

/** The SQLite single-instance guard; kept on PG so both schemas have the same tables (unused: leases replace it). */
export const instanceLeases = pgTable('instance_leases', {
  name: text('name').primaryKey(),
  owner: text('owner').notNull(),
  pid: integer('pid').notNull(),
  host: text('host').notNull(),
  startedAt: ms('started_at').notNull(),
  heartbeatAt: ms('heartbeat_at').notNull(),
  expiresAt: ms('expires_at').notNull(),
});

export const events = pgTable(
  'events',
  {
    seq: seq(),
    id: text('id').notNull(),
    accountId: text('account_id').notNull(),
    mode: mode(),
    intentId: text('intent_id'),
    type: text('type').notNull(),
    payload: text('payload').notNull(),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('events_id').on(t.id),
    index('events_account').on(t.accountId, t.mode, t.seq),
    index('events_intent').on(t.intentId, t.seq),
  ],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    seq: seq(),
    id: text('id').notNull(),
    eventId: text('event_id').notNull(),
    accountId: text('account_id').notNull(),
    mode: mode(),
    url: text('url').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attemptCount: integer('attempt_count').notNull(),
    nextAttemptAt: ms('next_attempt_at').notNull(),
    leaseUntil: ms('lease_until'),
    responseStatus: integer('response_status'),
    lastError: text('last_error'),
    lastAttemptedAt: ms('last_attempted_at'),
    deliveredAt: ms('delivered_at'),
    failedAt: ms('failed_at'),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_id').on(t.id),
    // The dispatcher's claim (src/store/pg/webhook-dispatch.ts: SELECT seq, url ... WHERE status = 'pending'
    // AND next_attempt_at BETWEEN since AND now AND (lease_until IS NULL OR lease_until < now) AND url NOT IN
    // (full URLs) ORDER BY next_attempt_at LIMIT n) and countPendingDeliveries. Pending rows only (delivered and
    // failed ones leave it), covering url and lease_until so the claim's window is read from the index
    // alone: no table read per candidate to learn that it is leased or that its URL is full.
    index('webhook_deliveries_due').on(t.nextAttemptAt, t.url, t.leaseUntil).where(sql`status = 'pending'`),
    index('webhook_deliveries_account').on(t.accountId, t.mode, t.seq),
    // An event's deliveries: the intent timeline's counts (events.ts intentEventTimeline, the
    // dashboard's intent page). Without it each count read every delivery row ever written.
    // Not covering status: a delivery's status changes on every attempt, its event never.
    index('webhook_deliveries_event').on(t.eventId),
  ],
);

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    accountId: text('account_id').notNull(),
    mode: mode(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    responseStatus: integer('response_status').notNull(),
    responseBody: text('response_body').notNull(),
    createdAt: ms('created_at').notNull(),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.mode, t.key] }), index('idempotency_expiry').on(t.expiresAt)],
);

/** Leases on live work with fencing epochs (meaning: src/store/schema.ts). Expiry is judged by the database clock. */
export const leases = pgTable('leases', {
  name: text('name').primaryKey(),
  owner: text('owner').notNull(),
  epoch: bigint('epoch', { mode: 'number' }).notNull(),
  expiresAt: ms('expires_at').notNull(),
});

/** Claims on work in flight across instances (meaning: src/store/schema.ts). */
export const claims = pgTable(
  'claims',
  {
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    owner: text('owner').notNull(),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key] })],
);
