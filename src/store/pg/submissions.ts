// Submission rows on PostgreSQL, as ../submissions.ts: the write-ahead record of every
// transaction PayForge was told about for an intent, committed `sending` before a broadcast.
import { type NewSubmission, type SubmissionRepo, type SubmissionStatus, submissionFromRow } from '../submissions';
import { type Async, first, type Pg, rows } from './sql';
import { pgClaimSlots } from './claims';


/** Who is broadcasting which transaction: one per store. */
export type BroadcastSlots = Pick<Async<SubmissionRepo>, 'claimBroadcast' | 'releaseBroadcast' | 'isBroadcasting'>;

/** `slots` are the store's (shared by every transaction's repos). */
export function createPgSubmissionRepo(q: Pg, slots: BroadcastSlots = pgClaimSlots(q).broadcast): Async<SubmissionRepo> {
  const facts = (s: NewSubmission) => [s.signer, s.signedTransaction, s.watchData === null ? null : JSON.stringify(s.watchData), s.source, s.status];
  const setStatus = (status: SubmissionStatus, chain: string, tx: string, at: number) =>
    q.unsafe('UPDATE submissions SET status = $1, updated_at = $2 WHERE chain = $3 AND tx_signature = $4', [status, at, chain, tx]);
  return {
    ...slots,
    async record(s) {
      const r = await first(
        q,
        `INSERT INTO submissions (intent_id, chain, tx_signature, signer, signed_transaction, watch_data, source, status, outcome, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $9, $9) RETURNING *`,
        [s.intentId, s.chain, s.txSignature, ...facts(s), s.createdAt],
      );
      return submissionFromRow(r!);
    },
    async retry(s) {
      const r = await first(
        q,
        `UPDATE submissions SET intent_id = $1, signer = $2, signed_transaction = $3, watch_data = $4, source = $5, status = $6,
                outcome = NULL, updated_at = $7
          WHERE chain = $8 AND tx_signature = $9 RETURNING *`,
        [s.intentId, ...facts(s), s.createdAt, s.chain, s.txSignature],
      );
      return submissionFromRow(r!);
    },
    markSent: async (chain, tx, at) => void (await setStatus('sent', chain, tx, at)),
    markRejected: async (chain, tx, at) => void (await setStatus('rejected', chain, tx, at)),
    setOutcome: async (chain, tx, outcome, at) =>
      void (await q.unsafe('UPDATE submissions SET outcome = $1, updated_at = $2 WHERE chain = $3 AND tx_signature = $4', [outcome, at, chain, tx])),
    async findByTx(chain, tx) {
      const r = await first(q, 'SELECT * FROM submissions WHERE chain = $1 AND tx_signature = $2', [chain, tx]);
      return r ? submissionFromRow(r) : null;
    },
    openForIntent: async (intentId) =>
      (await rows(q, `SELECT * FROM submissions WHERE intent_id = $1 AND outcome IS NULL AND status IN ('sending', 'sent') ORDER BY seq`, [intentId])).map(
        submissionFromRow,
      ),
    sending: async () => (await rows(q, `SELECT * FROM submissions WHERE status = 'sending' AND outcome IS NULL ORDER BY seq`)).map(submissionFromRow),
    hasSending: async (intentId) =>
      (await first(q, `SELECT 1 AS x FROM submissions WHERE intent_id = $1 AND status = 'sending' LIMIT 1`, [intentId])) !== null,
  };
}
