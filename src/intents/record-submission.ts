// The write-ahead rules every way of submitting shares (signed bytes, transaction id) and that
// reconciliation replays: what a transaction told to PayForge does to its intent, decided inside
// ONE write (tx.get locks the row on PostgreSQL), so two submits for one intent are serialized by
// the database itself.
import type { Tx } from '../actors/runtime';
import type { Caller } from '../domain/caller';
import { AppError } from '../domain/errors';
import type { PaymentIntentWire } from '../domain/intent';
import type { StoredIntent } from '../store/intents';
import type { Submission, SubmissionSource } from '../store/submissions';
import { hasTag } from '../../machines/judge';
import { checkPayable } from './build-transaction';
import { ownedBy } from './load-intent';
import type { Services } from './services';

export interface SubmitTransactionResult {
  intent: PaymentIntentWire;
  txSignature: string;
}

/** A transaction about to be recorded for an intent. */
export interface Candidate {
  chain: string;
  txSignature: string;
  /** Canonical address of the fee payer / sender. */
  signer: string;
  signedTransaction: string | null;
  watchData: Record<string, unknown>;
  source: SubmissionSource;
}

export type Claim =
  /** Already recorded (idempotent replay, or applied now): answer with the intent as it is. */
  | { kind: 'done'; intent: StoredIntent }
  /** Recorded `sending`: the caller may broadcast now, and must then record the outcome. */
  | { kind: 'claimed'; intent: StoredIntent };

export function inProgress(intentId: string): AppError {
  return new AppError('idempotency.in_progress', 'Another transaction for this intent is being submitted; retry shortly.', {
    details: { intent_id: intentId },
  });
}

export function alreadySubmitted(param: string, txSignature: string): AppError {
  return new AppError('transaction.already_submitted', 'This transaction was already submitted for another intent.', {
    param,
    details: { tx_signature: txSignature },
  });
}

/** EVM addresses compare case-insensitively (contract 6), Solana ones exactly. */
const sameSigner = (chain: string, a: string, b: string) => (chain.startsWith('solana:') ? a === b : a.toLowerCase() === b.toLowerCase());

/**
 * Inside a write: the intent must be payable at this instant and no other transaction for it
 * may be on its way; then the candidate is recorded `sending`. Throws the 409/422 refusals.
 */
export async function claimSubmission(
  tx: Tx,
  s: Services,
  caller: Caller,
  id: string,
  c: Candidate,
  opts: { param: string; ownsBroadcastKey: boolean },
): Promise<Claim> {
  const { param } = opts;
  const { submissions, intents } = tx.repos;
  const cur = ownedBy(caller, await tx.get(id), id);
  const known = await submissions.findByTx(c.chain, c.txSignature);
  if (known && known.intentId !== id) throw alreadySubmitted(param, c.txSignature);
  if (!known) {
    // Rows from before the submissions table existed carry the transaction on the intent only.
    const other = await intents.findByTxSignature(c.chain, c.txSignature);
    if (other && other.id !== id) throw alreadySubmitted(param, c.txSignature);
    if (cur.txSignature === c.txSignature) return { kind: 'done', intent: cur };
  } else if (known.status === 'sent') {
    return { kind: 'done', intent: cur };
  } else if (known.status === 'sending') {
    // The caller holding the key checked that nobody else was broadcasting these bytes.
    if (!opts.ownsBroadcastKey && (await s.submissions.isBroadcasting(c.chain, c.txSignature))) throw inProgress(id);
    // Its broadcaster is gone (crash, failed commit): it counts as sent; the watcher rebroadcasts.
    return { kind: 'done', intent: (await applySent(tx, known)) ?? cur };
  }
  await checkPayable(cur, tx.now, tx.get);
  // The caller verified the signer against the fulfiller it read before this write; a build may
  // have attached another one since (a wallet asking the pay page at that moment). One after the
  // other the submit is refused then, so it is now: the intent's fulfiller is whom a refund pays.
  if (cur.fulfiller !== null && !sameSigner(c.chain, cur.fulfiller, c.signer)) {
    throw new AppError('transaction.mismatch', `This transaction is signed by ${c.signer}, not by the intent's fulfiller ${cur.fulfiller}.`, {
      param,
      details: { intent_id: id, differences: [{ field: 'signer', expected: cur.fulfiller, actual: c.signer }] },
    });
  }
  for (const open of await submissions.openForIntent(id)) {
    if (open.txSignature !== c.txSignature && open.status === 'sending') throw inProgress(id);
  }
  const row = { intentId: id, ...c, status: 'sending' as const, createdAt: tx.now };
  if (known) await submissions.retry(row); // refused before (e.g. no funds then): a new attempt
  else await submissions.record(row);
  return { kind: 'claimed', intent: cur };
}

/**
 * Inside a write: the recorded transaction was (or may have been) broadcast: the intent goes
 * pending with it when still payable, whatever its TTL (a deadline never expires an intent with
 * a `sending` row; once pending, the TTL sets pendingAtExpiry), and the row becomes `sent`.
 */
export async function applySent(tx: Tx, row: Submission): Promise<StoredIntent | null> {
  const cur = await tx.get(row.intentId);
  await tx.repos.submissions.markSent(row.chain, row.txSignature, tx.now);
  if (!cur) return null;
  if (!hasTag(cur, 'payable')) return cur;
  return (
    (await tx.apply(cur, { type: 'SUBMIT', at: tx.now, txSignature: row.txSignature }, 'ignore', {
      fulfiller: cur.fulfiller ?? row.signer,
      signedTransaction: row.signedTransaction,
      watchData: row.watchData,
    })) ?? cur
  );
}

/**
 * `sending` rows looked at (their broadcast claim asked, their write queued) per turn of the event
 * loop: thousands of them (a crash in the middle of a bulk submit) were one step of the loop, ~40 ms
 * at 5,000 (bench/long-steps).
 */
const RECONCILE_CHUNK = 250;
const nextTurn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Reconciliation: every `sending` row whose broadcast is not under way in this process (the
 * process that sent it crashed, or its commit failed after the broadcast) is applied as sent.
 * Run at boot before deadlines fire, and periodically. Resolves once every write is queued (in
 * the rows' order, a chunk per turn), with `applied`: how many rows those writes applied.
 */
export async function reconcileSubmissions(s: Pick<Services, 'runtime' | 'submissions'>): Promise<{ applied: Promise<number> }> {
  const writes: Promise<number>[] = [];
  let n = 0;
  for (const r of await s.submissions.sending()) {
    if (++n % RECONCILE_CHUNK === 0) await nextTurn();
    if (await s.submissions.isBroadcasting(r.chain, r.txSignature)) continue;
    const w = s.runtime.write(async (tx) => {
      const now = await tx.repos.submissions.findByTx(r.chain, r.txSignature);
      // isBroadcasting is this process's claim (a claim table on PostgreSQL: lane cluster), read with the rest.
      if (now?.status !== 'sending' || (await tx.repos.submissions.isBroadcasting(r.chain, r.txSignature))) return 0;
      await applySent(tx, now);
      return 1;
    });
    // Handled now (Promise.all below is attached only once every write is queued, turns later).
    w.catch(() => {});
    writes.push(w);
  }
  return { applied: Promise.all(writes).then((a) => a.reduce<number>((x, y) => x + y, 0)) };
}
