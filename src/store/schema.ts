// The SQLite schema (drizzle). drizzle-kit turns changes into append-only migrations in drizzle/.
// Amounts are TEXT (decimal bigint): 18-decimal tokens overflow SQLite's 64-bit integers.

import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const accounts = sqliteTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  plan: text('plan', { enum: ['free', 'pro'] }).notNull(),
  createdAt: integer('created_at').notNull(),
});

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull().references(() => accounts.id),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
    /** SHA-256 hex of the whole key: the key itself is shown once and never stored. */
    hash: text('hash').notNull(),
    /** Last four characters, so an operator can tell keys apart. */
    last4: text('last4').notNull(),
    createdAt: integer('created_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_hash').on(t.hash), index('api_keys_account').on(t.accountId)],
);

export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    accountId: text('account_id').notNull().references(() => accounts.id),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
    url: text('url').notNull(),
    secret: text('secret').notNull(),
    /** Kept signing beside the new one until previousSecretExpiresAt (rotation overlap). */
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: integer('previous_secret_expires_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.mode] })],
);

export const intents = sqliteTable(
  'intents',
  {
    /** Insertion order: the stable key for newest-first pagination. */
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull(),
    accountId: text('account_id').notNull(),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
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
    expiresAt: integer('expires_at').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    retryRequired: integer('retry_required', { mode: 'boolean' }).notNull(),
    pendingAtExpiry: integer('pending_at_expiry', { mode: 'boolean' }).notNull(),
    txSignature: text('tx_signature'),
    detectedAt: integer('detected_at'),
    ataRentLamports: integer('ata_rent_lamports'),
    confirmedAt: integer('confirmed_at'),
    finalizedAt: integer('finalized_at'),
    failureReason: text('failure_reason'),
    refundedBy: text('refunded_by'),
    refundOf: text('refund_of'),
    /** JSON facts of the last build (Solana blockhash and lastValidBlockHeight ...). */
    buildData: text('build_data'),
    /** base64 signed bytes of the submitted transaction: rebroadcast as they are. */
    signedTransaction: text('signed_transaction'),
    /** JSON facts the watcher needs after a restart. */
    watchData: text('watch_data'),
    /** Persisted XState snapshot of the lifecycle actor, and the machine version that wrote it. */
    snapshot: text('snapshot').notNull(),
    machineVersion: integer('machine_version').notNull(),
  },
  (t) => [
    uniqueIndex('intents_id').on(t.id),
    index('intents_account_list').on(t.accountId, t.mode, t.seq),
    index('intents_account_state').on(t.accountId, t.mode, t.state, t.seq),
    index('intents_account_reference').on(t.accountId, t.mode, t.reference),
    index('intents_live').on(t.state).where(sql`state IN ('created','pending','confirmed','dropped')`),
    uniqueIndex('intents_tx_signature').on(t.chain, t.txSignature),
  ],
);

export const events = sqliteTable(
  'events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull(),
    accountId: text('account_id').notNull(),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
    intentId: text('intent_id').notNull(),
    type: text('type').notNull(),
    /** The exact JSON envelope sent to receivers; signatures are over these bytes. */
    payload: text('payload').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('events_id').on(t.id), index('events_account').on(t.accountId, t.mode, t.seq), index('events_intent').on(t.intentId, t.seq)],
);

export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull(),
    eventId: text('event_id').notNull(),
    accountId: text('account_id').notNull(),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
    url: text('url').notNull(),
    /** pending: waiting for nextAttemptAt; delivered; failed (attempts exhausted). */
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attemptCount: integer('attempt_count').notNull(),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    /** A dispatcher owns the row until this time; a dead process's lease simply runs out. */
    leaseUntil: integer('lease_until'),
    responseStatus: integer('response_status'),
    lastError: text('last_error'),
    lastAttemptedAt: integer('last_attempted_at'),
    deliveredAt: integer('delivered_at'),
    failedAt: integer('failed_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_id').on(t.id),
    index('webhook_deliveries_due').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_account').on(t.accountId, t.mode, t.seq),
  ],
);

export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    accountId: text('account_id').notNull(),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
    key: text('key').notNull(),
    /** SHA-256 of the canonical request body: same key + other body = key_reused. */
    requestHash: text('request_hash').notNull(),
    responseStatus: integer('response_status').notNull(),
    responseBody: text('response_body').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.mode, t.key] }), index('idempotency_expiry').on(t.expiresAt)],
);
