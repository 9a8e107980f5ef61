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
    /** Last request made with the key, flushed at most every 30 s (not a write per request). */
    lastUsedAt: integer('last_used_at'),
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

/**
 * The live states in the partial indexes' conditions, as comparisons rather than `state IN (...)`:
 * SQLite evaluates a condition of more than two constants with IN by building a temporary b-tree
 * of the list, and a write evaluates each partial index's condition for its row: three such
 * b-trees made and freed per intent INSERT (and per UPDATE), ~62k of the ~259k instructions of a
 * create's SQL (migration 0016). The queries that need these indexes write the same expressions
 * (src/store/states.ts stateIs / stateIsNot), which is how SQLite proves an index applies. The
 * list is the machine's `live` tag (test/store/intents.test.ts checks they are the same).
 */
export const LIVE = "state = 'created' OR state = 'pending' OR state = 'confirmed' OR state = 'dropped'";
export const NOT_LIVE = "state <> 'created' AND state <> 'pending' AND state <> 'confirmed' AND state <> 'dropped'";

export const intents = sqliteTable(
  'intents',
  {
    /**
     * Insertion order: the stable key for newest-first pagination. The rowid without
     * AUTOINCREMENT (migration 0012): max(seq) + 1 under the write lock, so still increasing in
     * commit order, and no row of this table is ever deleted, so no seq is ever handed out twice;
     * AUTOINCREMENT only added a read and a write of sqlite_sequence to every insert (README Decisions).
     */
    seq: integer('seq').primaryKey(),
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
    /** JSON array of every refund intent's id, oldest first (refundedBy is the last). */
    refunds: text('refunds').notNull().default('[]'),
    /** JSON facts of the last build (Solana blockhash and lastValidBlockHeight ...). */
    buildData: text('build_data'),
    /** base64 signed bytes of the submitted transaction: rebroadcast as they are. */
    signedTransaction: text('signed_transaction'),
    /** JSON facts the watcher needs after a restart. */
    watchData: text('watch_data'),
    /** Persisted XState snapshot of the lifecycle actor, and the machine version that wrote it. */
    snapshot: text('snapshot').notNull(),
    machineVersion: integer('machine_version').notNull(),
    /** Solana family: base58 32-byte reference key made at create (Solana Pay convention); null on EVM. */
    solanaReference: text('solana_reference'),
    /** JSON {txSignature, amount, amountBaseUnits, from, detectedAt} of money that arrived after the intent closed. */
    latePayment: text('late_payment'),
    /** `pt_` + 32 random base62: the payer's capability for this intent's payment page (contract 12). */
    payToken: text('pay_token'),
  },
  // Each index and the query that uses it (every create pays for every index that applies to it,
  // so none is here without its query; the partial ones skip the rows they can never match).
  (t) => [
    // IntentRepo.get (SELECT ... WHERE id = ?): every read and transition by id.
    uniqueIndex('intents_id').on(t.id),
    // IntentRepo.list / seqOf: an account's intents newest first (GET /v1/intents, starting_after).
    index('intents_account_list').on(t.accountId, t.mode, t.seq),
    // IntentRepo.list with ?state=.
    index('intents_account_state').on(t.accountId, t.mode, t.state, t.seq),
    // IntentRepo.list with ?reference= (intents without a reference are never asked for).
    index('intents_account_reference').on(t.accountId, t.mode, t.reference).where(sql`reference IS NOT NULL`),
    // DetectionRepo's live half (the receivers a network's detector watches, every poll): only
    // live rows, by chain, covering requestor/token/created_at (and state, which SQLite needs in
    // the index to use it alone) so the poll reads no table row.
    // IntentRepo.listLive (boot) scans it too.
    index('intents_live').on(t.chain, t.requestor, t.tokenAddress, t.createdAt, t.state).where(sql.raw(LIVE)),
    // DetectionRepo.unfinalizedMatches (every detector poll): the chain's live intents that hold a
    // transaction, covering the join's columns. intents_live has no tx_signature, so that read
    // visited every live intent's row, each poll (~10 ms per poll at 100k live intents, on the
    // event loop). A new intent has no transaction yet: no entry at create (migration 0015).
    index('intents_live_tx').on(t.chain, t.txSignature, t.state).where(sql.raw(`tx_signature IS NOT NULL AND (${LIVE})`)),
    // IntentRepo.findByTxSignature, DetectionRepo.unfinalizedMatches's join; unique: one intent
    // per transaction. A new intent has no transaction yet, so it is not in the index.
    uniqueIndex('intents_tx_signature').on(t.chain, t.txSignature).where(sql`tx_signature IS NOT NULL`),
    // IntentRepo.findBySolanaReference (Solana detection by reference key).
    uniqueIndex('intents_solana_reference').on(t.solanaReference).where(sql`solana_reference IS NOT NULL`),
    // GET /pay/<payToken>: one look-up per page view and status poll.
    uniqueIndex('intents_pay_token').on(t.payToken).where(sql`pay_token IS NOT NULL`),
    // IntentRepo.listByReceiver: the intents a transfer to one receiving address may pay.
    index('intents_receiver').on(t.chain, t.requestor, t.tokenAddress),
    // IntentRepo.listByReceiver's live intents of the transfer's amount (a busy receiver's page is
    // full): through intents_live the read visited every live row of the receiver (~21 ms per
    // transfer at 100k live on one address, inside the write); here only those of that amount.
    index('intents_live_exact').on(t.chain, t.requestor, t.tokenAddress, t.amountBaseUnits).where(sql.raw(LIVE)),
    // DetectionRepo's look-back half: intents of a chain closed (updated) since a time. Closed
    // rows only (live ones are the other half), covering what the poll reads: a new intent
    // costs no entry here, and a poll never visits the live rows twice.
    index('intents_chain_updated')
      .on(t.chain, t.updatedAt, t.requestor, t.tokenAddress, t.createdAt, t.state)
      .where(sql.raw(NOT_LIVE)),
    // IntentRepo.listClosedWithTransaction (boot, and a shard newly leased): closed intents of a
    // chain updated since the look-back that hold a transaction not finalized yet. Only those
    // rows (a handful: most closed intents never had a transaction, or reached finality), so
    // boot reads them alone instead of every closed row of the look-back (1M closed: ~0.6 s).
    // A create writes no entry (live), nor do most closes.
    index('intents_closed_unfinalized_tx')
      .on(t.chain, t.updatedAt)
      .where(sql.raw(`${NOT_LIVE} AND tx_signature IS NOT NULL AND finalized_at IS NULL`)),
  ],
);

/**
 * Every transaction PayForge was told about for an intent (signed bytes, a txSignature, or a
 * detected transfer), written BEFORE any broadcast: the write-ahead record that makes a submit
 * crash-safe and that the watchers take their work from (contract sections 11 and 14).
 */
export const submissions = sqliteTable(
  'submissions',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    intentId: text('intent_id').notNull(),
    chain: text('chain').notNull(),
    txSignature: text('tx_signature').notNull(),
    /** Fee payer / sender recovered from the transaction. */
    signer: text('signer').notNull(),
    /** base64 signed bytes (rebroadcast as they are); null when known only by id or by detection. */
    signedTransaction: text('signed_transaction'),
    /** JSON watch facts (Solana lastValidBlockHeight, submit slot; EVM from, nonce, sinceBlock). */
    watchData: text('watch_data'),
    /** submit | txid | detected: how PayForge learned of it. */
    source: text('source', { enum: ['submit', 'txid', 'detected'] }).notNull(),
    /**
     * sending: recorded, broadcast under way or its outcome unknown (counts as sent);
     * sent: an upstream accepted it (or it was already on chain); rejected: refused for certain
     * before reaching any mempool (the intent stays payable).
     */
    status: text('status', { enum: ['sending', 'sent', 'rejected'] }).notNull(),
    /** The chain's last word on it, null while it can still change: landed | failed | dropped. */
    outcome: text('outcome', { enum: ['landed', 'failed', 'dropped'] }),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('submissions_tx').on(t.chain, t.txSignature),
    index('submissions_intent').on(t.intentId, t.seq),
    index('submissions_open').on(t.status).where(sql`outcome IS NULL`),
  ],
);

/** The ledger of transfers found on chain (contract section 11): matched, late or unmatched. */
export const payments = sqliteTable(
  'payments',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull(),
    accountId: text('account_id').notNull(),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
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
    reason: text('reason', { enum: ['intent_closed', 'amount_mismatch', 'ambiguous', 'duplicate', 'no_open_intent', 'sanctions_match'] }),
    detectedAt: integer('detected_at').notNull(),
  },
  (t) => [
    uniqueIndex('payments_id').on(t.id),
    // One transaction never makes two records.
    uniqueIndex('payments_tx').on(t.chain, t.txSignature),
    index('payments_account').on(t.accountId, t.mode, t.seq),
    index('payments_intent').on(t.intentId),
    // The detectors' unfinalized matches (detection.ts): the ambiguous payments of a chain, read
    // every poll. Few rows (a transfer several open intents could take); the matched ones are
    // reached from the live intents instead, so no poll reads every payment of the chain.
    index('payments_ambiguous').on(t.chain).where(sql`reason = 'ambiguous'`),
  ],
);

/** Detection scan positions per network (EVM last scanned block, Solana last seen signature per address). */
export const chainCursors = sqliteTable(
  'chain_cursors',
  {
    chain: text('chain').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.chain, t.key] })],
);

/** Single-instance guard on SQLite (contract section 14): one row, a heartbeat, taken over when stale. */
export const instanceLeases = sqliteTable('instance_leases', {
  name: text('name').primaryKey(),
  owner: text('owner').notNull(),
  pid: integer('pid').notNull(),
  host: text('host').notNull(),
  startedAt: integer('started_at').notNull(),
  heartbeatAt: integer('heartbeat_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
});

export const events = sqliteTable(
  'events',
  {
    /** Insertion order, the rowid without AUTOINCREMENT as intents.seq (never deleted, never reused). */
    seq: integer('seq').primaryKey(),
    id: text('id').notNull(),
    accountId: text('account_id').notNull(),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
    /** null for payment.unmatched events of a payment that names no intent. */
    intentId: text('intent_id'),
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
    /** Insertion order, the rowid without AUTOINCREMENT as intents.seq (never deleted, never reused). */
    seq: integer('seq').primaryKey(),
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
    // The dispatcher's claim (src/store/webhook-dispatch.ts: SELECT seq, url ... WHERE status = 'pending'
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

/**
 * Leases on live work (issue 12: chain watches by shard of intents `shard:<n>`, detection per
 * chain `detect:<chain>`): one owner at a time until expires_at; epoch grows on every change of
 * owner, and writes made for a lease carry (name, epoch) so a former owner's are dropped (fencing).
 */
export const leases = sqliteTable('leases', {
  name: text('name').primaryKey(),
  owner: text('owner').notNull(),
  epoch: integer('epoch').notNull(),
  expiresAt: integer('expires_at').notNull(),
});

/**
 * Claims on work in flight that must not run twice at once across processes (issue 12: an
 * idempotency key being answered, one broadcast of an intent at a time): inserted when absent or
 * expired, deleted on release.
 */
export const claims = sqliteTable(
  'claims',
  {
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    owner: text('owner').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key] })],
);
