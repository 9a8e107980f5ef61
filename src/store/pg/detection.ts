// What the payment detectors read and write on PostgreSQL (contract section 11), as
// ../detection.ts: the receivers of live intents and of intents closed within the look-back
// (each with its earliest createdAt), their Solana references, scan cursors, and the matched
// payments short of finality. Receivers: the live and the closed half read apart (no INDEXED BY;
// each is shaped so that its index is the plan).
import type { DetectionRepo, DetectionStates, UnfinalizedMatch, WatchedReceiver, WatchedReference } from '../detection';
import { stateList } from '../states';
import { type Async, first, numbers, type Pg, rows } from './sql';

export function createPgDetectionRepo(q: Pg, states: DetectionStates): Async<DetectionRepo> {
  const live = stateList(states.live);
  const watched = `chain = $1 AND (state IN (${live}) OR updated_at >= $2)`;
  // COLLATE "C": byte order, the order SQLite (and the JS comparison) gives, whatever the
  // database's locale (checksummed hex addresses mix cases).
  // Two disjoint halves, as on SQLite: one OR over both made PostgreSQL read every row of the
  // table each poll (a parallel seq scan: ~150 ms at 100k live + 1M closed, even for a recent
  // `since`). The live half is a loose index scan of intents_live (one index probe per receiver,
  // the first entry of each being its earliest live intent); the closed half a range of
  // intents_chain_updated.
  const receivers = `WITH RECURSIVE g AS (
      (SELECT requestor, token_address, created_at FROM intents WHERE chain = $1 AND state IN (${live})
        ORDER BY requestor, token_address, created_at LIMIT 1)
      UNION ALL
      SELECT n.requestor, n.token_address, n.created_at FROM g, LATERAL (
        SELECT requestor, token_address, created_at FROM intents WHERE chain = $1 AND state IN (${live})
           AND (requestor, token_address) > (g.requestor, g.token_address)
         ORDER BY requestor, token_address, created_at LIMIT 1) n
    ), halves AS (
      SELECT requestor, token_address, created_at FROM g
      UNION ALL
      SELECT requestor, token_address, created_at FROM intents WHERE chain = $1 AND state NOT IN (${live}) AND updated_at >= $2
    )
    SELECT requestor, token_address AS "tokenAddress", MIN(created_at) AS since FROM halves
     GROUP BY requestor, token_address ORDER BY requestor COLLATE "C", token_address COLLATE "C"`;
  // The closed half in one page: PostgreSQL groups it in its own process, so the event loop only
  // waits for the answer (one row per receiver); nothing to cut into pages.
  const closedGroups = `SELECT requestor, token_address AS "tokenAddress", MIN(created_at) AS since FROM intents
    WHERE chain = $1 AND state NOT IN (${live}) AND updated_at >= $2 GROUP BY requestor, token_address`;
  const references = `SELECT solana_reference AS reference, requestor, token_address AS "tokenAddress", created_at AS "createdAt"
    FROM intents WHERE ${watched} AND solana_reference IS NOT NULL ORDER BY seq`;
  const unfinalized = pgUnfinalizedMatchesSql(states);
  return {
    receivers: async (chain, since) => numbers<WatchedReceiver>(await rows(q, receivers, [chain, since]), ['since']),
    closedReceiversPage: async (chain, since) => ({
      receivers: numbers<WatchedReceiver>(await rows(q, closedGroups, [chain, since]), ['since']),
      next: null,
    }),
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

/** As ../detection.ts unfinalizedMatchesSql: from the chain's live intents with a transaction (intents_live_tx) and payments_ambiguous. */
export function pgUnfinalizedMatchesSql(states: DetectionStates): string {
  return `SELECT "txSignature", "intentId", "tokenAddress", "from", "to", amount FROM (
      SELECT p.seq, p.tx_signature AS "txSignature", p.intent_id AS "intentId", p.token_address AS "tokenAddress",
             p.from_address AS "from", p.to_address AS "to", p.amount_base_units AS amount
        FROM intents i JOIN payments p ON p.chain = i.chain AND p.tx_signature = i.tx_signature
       WHERE i.chain = $1 AND i.state IN (${stateList(states.live)}) AND i.state IN (${stateList(states.watching)})
         AND i.tx_signature IS NOT NULL AND p.status = 'matched'
      UNION
      SELECT p.seq, p.tx_signature, p.intent_id, p.token_address, p.from_address, p.to_address, p.amount_base_units
        FROM payments p JOIN intents i ON i.chain = p.chain AND i.tx_signature = p.tx_signature
       WHERE p.chain = $1 AND p.reason = 'ambiguous'
    ) u ORDER BY seq`;
}
