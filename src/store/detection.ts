// What the payment detectors read and write (contract section 11): the receivers to watch per
// network, scan cursors (chain_cursors), and the matched payments still short of finality.
import type { Database } from 'bun:sqlite';
import type { IntentState } from '../domain/intent';
import { stateList } from './states';

/** One receiving account to watch: a requestor and token on a network, and the intents' references. */
export interface WatchedReceiver {
  requestor: string;
  tokenAddress: string;
  /** Earliest createdAt among the intents that make it watched: older transfers cannot pay them. */
  since: number;
}

export interface WatchedReference {
  reference: string;
  requestor: string;
  tokenAddress: string;
  createdAt: number;
}

/**
 * A matched payment whose intent has not reached finality yet, or an ambiguous one that a submit by
 * txSignature has since tied to an intent: the detector reports it again so both get settled.
 */
export interface UnfinalizedMatch {
  txSignature: string;
  intentId: string;
  tokenAddress: string;
  from: string;
  to: string;
  amountBaseUnits: bigint;
}

export interface DetectionRepo {
  receivers(chain: string, closedSince: number): WatchedReceiver[];
  references(chain: string, closedSince: number): WatchedReference[];
  getCursor(chain: string, key: string): string | null;
  setCursor(chain: string, key: string, value: string, now: number): void;
  unfinalizedMatches(chain: string): UnfinalizedMatch[];
}

// Live states plus anything touched within the look-back (closed, or paid and watched for duplicates),
// as two disjoint index searches: the live partial index by chain, then the closed rows' partial
// index by chain + updated_at. Both cover the receivers' columns, so a poll reads no table row
// for them; never a scan of history, and a live intent is read once, not twice.
// `live` is the caller's state set (the machine's live tag), the very list both partial indexes name.
const watched = (live: string, cols: string) =>
  `SELECT ${cols} FROM intents INDEXED BY intents_live WHERE state IN (${live}) AND chain = $chain
   UNION ALL SELECT ${cols} FROM intents INDEXED BY intents_chain_updated
    WHERE state NOT IN (${live}) AND chain = $chain AND updated_at >= $since`;

/** The machine's tag sets the queries need (compose passes statesTagged of each). */
export interface DetectionStates {
  /** Not terminal (must equal the partial index intents_live, which INDEXED BY insists on). */
  live: readonly IntentState[];
  /** The chain reports on its transaction (pending, confirmed): a matched payment not final yet. */
  watching: readonly IntentState[];
}

export function createDetectionRepo(sqlite: Database, states: DetectionStates): DetectionRepo {
  const live = stateList(states.live);
  const receivers = sqlite.prepare(
    `SELECT requestor, token_address AS tokenAddress, MIN(created_at) AS since
       FROM (${watched(live, 'requestor, token_address, created_at')}) GROUP BY requestor, token_address`,
  );
  const references = sqlite.prepare(
    `SELECT solana_reference AS reference, requestor, token_address AS tokenAddress, created_at AS createdAt
       FROM (${watched(live, 'solana_reference, requestor, token_address, created_at')}) WHERE solana_reference IS NOT NULL`,
  );
  const getCursor = sqlite.prepare('SELECT value FROM chain_cursors WHERE chain = ? AND key = ?');
  const setCursor = sqlite.prepare(
    `INSERT INTO chain_cursors (chain, key, value, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (chain, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  const unfinalized = sqlite.prepare(
    `SELECT p.tx_signature AS txSignature, p.intent_id AS intentId, p.token_address AS tokenAddress, p.from_address AS "from",
            p.to_address AS "to", p.amount_base_units AS amount
       FROM payments p JOIN intents i ON i.chain = p.chain AND i.tx_signature = p.tx_signature
      WHERE p.chain = ? AND ((p.status = 'matched' AND i.state IN (${stateList(states.watching)})) OR p.reason = 'ambiguous')`,
  );
  return {
    receivers: (chain, since) => receivers.all({ $chain: chain, $since: since }) as WatchedReceiver[],
    references: (chain, since) => references.all({ $chain: chain, $since: since }) as WatchedReference[],
    getCursor: (chain, key) => (getCursor.get(chain, key) as { value: string } | null)?.value ?? null,
    setCursor: (chain, key, value, now) => void setCursor.run(chain, key, value, now),
    unfinalizedMatches: (chain) =>
      (unfinalized.all(chain) as Array<Omit<UnfinalizedMatch, 'amountBaseUnits'> & { amount: string }>).map(({ amount, ...m }) => ({
        ...m,
        amountBaseUnits: BigInt(amount),
      })),
  };
}
