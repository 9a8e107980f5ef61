// What the payment detectors read and write on PostgreSQL (contract section 11), as
// ../detection.ts: the receivers of live intents and of intents closed within the look-back
// (each with its earliest createdAt), their Solana references, scan cursors, and the matched
// payments short of finality. PostgreSQL plans the OR of the two halves itself (no INDEXED BY).
import type { DetectionRepo, DetectionStates, UnfinalizedMatch, WatchedReceiver, WatchedReference } from '../detection';
import { stateList } from '../states';
import { type Async, first, numbers, type Pg, rows } from './sql';

export function createPgDetectionRepo(q: Pg, states: DetectionStates): Async<DetectionRepo> {
  const live = stateList(states.live);
  const watched = `chain = $1 AND (state IN (${live}) OR updated_at >= $2)`;
  // COLLATE "C": byte order, the order SQLite (and the JS comparison) gives, whatever the
  // database's locale (checksummed hex addresses mix cases).
  const receivers = `SELECT requestor, token_address AS "tokenAddress", MIN(created_at) AS since FROM intents
    WHERE ${watched} GROUP BY requestor, token_address ORDER BY requestor COLLATE "C", token_address COLLATE "C"`;
  const references = `SELECT solana_reference AS reference, requestor, token_address AS "tokenAddress", created_at AS "createdAt"
    FROM intents WHERE ${watched} AND solana_reference IS NOT NULL ORDER BY seq`;
  const unfinalized = `SELECT p.tx_signature AS "txSignature", p.intent_id AS "intentId", p.token_address AS "tokenAddress",
      p.from_address AS "from", p.to_address AS "to", p.amount_base_units AS amount
    FROM payments p JOIN intents i ON i.chain = p.chain AND i.tx_signature = p.tx_signature
   WHERE p.chain = $1 AND ((p.status = 'matched' AND i.state IN (${stateList(states.watching)})) OR p.reason = 'ambiguous')
   ORDER BY p.seq`;
  return {
    receivers: async (chain, since) => numbers<WatchedReceiver>(await rows(q, receivers, [chain, since]), ['since']),
    references: async (chain, since) => numbers<WatchedReference>(await rows(q, references, [chain, since]), ['createdAt']),
    getCursor: async (chain, key) =>
      (await first<{ value: string }>(q, 'SELECT value FROM chain_cursors WHERE chain = $1 AND key = $2', [chain, key]))?.value ?? null,
    setCursor: async (chain, key, value, now) =>
      void (await q.unsafe(
        `INSERT INTO chain_cursors (chain, key, value, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (chain, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [chain, key, value, now],
      )),
    unfinalizedMatches: async (chain) =>
      (await rows<Omit<UnfinalizedMatch, 'amountBaseUnits'> & { amount: string }>(q, unfinalized, [chain])).map(({ amount, ...m }) => ({
        ...m,
        amountBaseUnits: BigInt(amount),
      })),
  };
}
