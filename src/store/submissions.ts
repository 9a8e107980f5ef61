// Submission rows: the write-ahead record of every transaction PayForge was told about for an
// intent (contract 11, crash windows). A row is committed `sending` BEFORE the broadcast, so a
// crash or a failed commit afterwards leaves a trace that reconciliation applies as sent.
import type { Database } from 'bun:sqlite';
import type { Awaitable, Sync } from './awaitable';
import { sqliteClaims } from './claim-slots';
import { json, num } from './columns';

export type SubmissionSource = 'submit' | 'txid' | 'detected';
export type SubmissionStatus = 'sending' | 'sent' | 'rejected';
export type SubmissionOutcome = 'landed' | 'failed' | 'dropped';

export interface Submission {
  seq: number;
  intentId: string;
  chain: string;
  txSignature: string;
  signer: string;
  signedTransaction: string | null;
  watchData: Record<string, unknown> | null;
  source: SubmissionSource;
  status: SubmissionStatus;
  outcome: SubmissionOutcome | null;
  createdAt: number;
  updatedAt: number;
}

export type NewSubmission = Omit<Submission, 'seq' | 'outcome' | 'updatedAt'>;

export interface SubmissionRepo {
  /** Insert a row (the (chain, txSignature) pair is unique: one transaction, one record). */
  record(s: NewSubmission): Awaitable<Submission>;
  /** A rejected row submitted again: back to `sending` with the latest facts. */
  retry(s: NewSubmission): Awaitable<Submission>;
  markSent(chain: string, txSignature: string, at: number): Awaitable<void>;
  markRejected(chain: string, txSignature: string, at: number): Awaitable<void>;
  /** What became of the transaction (null again when a reorg removed a landed one: it may land again). */
  setOutcome(chain: string, txSignature: string, outcome: SubmissionOutcome | null, at: number): Awaitable<void>;
  findByTx(chain: string, txSignature: string): Awaitable<Submission | null>;
  /** Rows of the intent that may still land: `sending`, or `sent` with no final outcome. Oldest first. */
  openForIntent(intentId: string): Awaitable<Submission[]>;
  /** Rows whose broadcast outcome was never written (reconciliation applies them as sent). Oldest first. */
  sending(): Awaitable<Submission[]>;
  hasSending(intentId: string): Awaitable<boolean>;
  /**
   * Claim the broadcast of chain + txSignature (false when a broadcast of it is under way), so
   * reconciliation never takes a live broadcast for a dead one. A claim row in the database
   * (src/store/claim-slots.ts): it holds across instances, and frees itself if its holder died.
   */
  claimBroadcast(chain: string, txSignature: string): Awaitable<boolean>;
  releaseBroadcast(chain: string, txSignature: string): Awaitable<void>;
  isBroadcasting(chain: string, txSignature: string): Awaitable<boolean>;
}

type Row = Record<string, unknown>;

/** A submissions row, read alike on both engines (./pg/submissions.ts uses it too). */
export function submissionFromRow(r: Row): Submission {
  return {
    seq: num(r.seq),
    intentId: r.intent_id as string,
    chain: r.chain as string,
    txSignature: r.tx_signature as string,
    signer: r.signer as string,
    signedTransaction: (r.signed_transaction as string | null) ?? null,
    watchData: json<Record<string, unknown>>(r.watch_data),
    source: r.source as SubmissionSource,
    status: r.status as SubmissionStatus,
    outcome: (r.outcome as SubmissionOutcome | null) ?? null,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** `claims`: the broadcasts under way, one set per store (see createIdempotencyRepo). */
export function createSubmissionRepo(sqlite: Database, claims = sqliteClaims(sqlite).broadcast): Sync<SubmissionRepo> {
  const insert = sqlite.prepare(
    `INSERT INTO submissions (intent_id, chain, tx_signature, signer, signed_transaction, watch_data, source, status, outcome, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?) RETURNING *`,
  );
  const retry = sqlite.prepare(
    `UPDATE submissions SET intent_id = ?, signer = ?, signed_transaction = ?, watch_data = ?, source = ?, status = ?, outcome = NULL, updated_at = ?
     WHERE chain = ? AND tx_signature = ? RETURNING *`,
  );
  const setStatus = sqlite.prepare('UPDATE submissions SET status = ?, updated_at = ? WHERE chain = ? AND tx_signature = ?');
  const setOutcome = sqlite.prepare('UPDATE submissions SET outcome = ?, updated_at = ? WHERE chain = ? AND tx_signature = ?');
  const byTx = sqlite.prepare('SELECT * FROM submissions WHERE chain = ? AND tx_signature = ?');
  const open = sqlite.prepare(
    `SELECT * FROM submissions WHERE intent_id = ? AND outcome IS NULL AND status IN ('sending', 'sent') ORDER BY seq`,
  );
  const sending = sqlite.prepare(`SELECT * FROM submissions WHERE status = 'sending' AND outcome IS NULL ORDER BY seq`);
  const hasSending = sqlite.prepare(`SELECT 1 AS x FROM submissions WHERE intent_id = ? AND status = 'sending' LIMIT 1`);

  const args = (s: NewSubmission) =>
    [s.signer, s.signedTransaction, s.watchData === null ? null : JSON.stringify(s.watchData), s.source, s.status] as const;

  return {
    record(s) {
      return submissionFromRow(insert.get(s.intentId, s.chain, s.txSignature, ...args(s), s.createdAt, s.createdAt) as Row);
    },
    retry(s) {
      return submissionFromRow(retry.get(s.intentId, ...args(s), s.createdAt, s.chain, s.txSignature) as Row);
    },
    markSent: (chain, tx, at) => void setStatus.run('sent', at, chain, tx),
    markRejected: (chain, tx, at) => void setStatus.run('rejected', at, chain, tx),
    setOutcome: (chain, tx, outcome, at) => void setOutcome.run(outcome, at, chain, tx),
    findByTx(chain, tx) {
      const r = byTx.get(chain, tx) as Row | null;
      return r ? submissionFromRow(r) : null;
    },
    openForIntent: (intentId) => (open.all(intentId) as Row[]).map(submissionFromRow),
    sending: () => (sending.all() as Row[]).map(submissionFromRow),
    hasSending: (intentId) => hasSending.get(intentId) !== null,
    claimBroadcast: claims.claimBroadcast,
    releaseBroadcast: claims.releaseBroadcast,
    isBroadcasting: claims.isBroadcasting,
  };
}
