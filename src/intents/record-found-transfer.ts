// A transfer found on chain (by a detector, whoever broadcast it) is matched to intents as
// contract section 11 says and written in ONE runtime write: it drives the one open intent it pays
// (like a submit, every event in order), or it becomes a late / unmatched payment record. One
// transaction never pays two intents nor makes two records (payments is unique on the transaction).
import type { Tx } from '../actors/runtime';
import type { FoundTransfer } from '../chains/types';
import { AppError } from '../domain/errors';
import { newId } from '../domain/ids';
import { toWire } from '../domain/intent';
import { toPaymentWire, type PaymentReason, type PaymentRecord, type PaymentStatus, type PaymentWire } from '../domain/payment';
import type { StoredIntent } from '../store/intents';
import type { Services } from './services';
import { canApply, hasTag } from '../../machines/judge';

export type RecordFoundTransferResult =
  | { outcome: 'ignored'; payment: null }
  | { outcome: 'recorded' | 'known'; payment: PaymentWire };

// The sets are the machine's tags: open = the TTL still applies (created, dropped, pending).
const open = (i: StoredIntent) => hasTag(i, 'deadline');
const closed = (i: StoredIntent) => hasTag(i, 'closed');
const paid = (i: StoredIntent) => hasTag(i, 'paid');
/** A transaction of its own is in flight and the chain has yet to confirm it. */
const inFlight = (i: StoredIntent) => canApply(i, { type: 'CHAIN_CONFIRMED', at: 0, txSignature: i.txSignature ?? '' });
/** Block times have one-second resolution on both families: a transfer in the intent's own second counts. */
const BLOCK_TIME_SLACK_MS = 1000;

type Verdict =
  | { kind: 'drive'; intent: StoredIntent }
  | { kind: 'late'; intent: StoredIntent }
  | { kind: 'unmatched'; reason: PaymentReason; intent: StoredIntent | null; account: StoredIntent };

/** `guard` runs first inside the write (a detection scan's lease fence: it throws to drop the write). */
export async function recordFoundTransfer(s: Services, ft: FoundTransfer, guard?: (tx: Tx) => Promise<void>): Promise<RecordFoundTransferResult> {
  const network = s.chains.network(ft.chain);
  if (!network) return { outcome: 'ignored', payment: null };
  const adapter = s.chains.adapter(network.family);
  const norm = (a: string) => adapter.normalizeAddress(a);
  const token = Object.entries(network.tokens).find(([, t]) => norm(t.address) === norm(ft.tokenAddress));
  if (!token) return { outcome: 'ignored', payment: null };
  const found: FoundTransfer = { ...ft, from: norm(ft.from), to: norm(ft.to), tokenAddress: token[1].address };
  // The requestor paying itself (EVM Transfer log from = to; Solana the debited account's owner is
  // the requestor) moved no money to it: not a payment, so it pays no intent and makes no record
  // (an unmatched record would fire payment.unmatched for the wallet's own housekeeping). Submit
  // and build refuse such a transfer (fulfiller = requestor); detection must not accept it either.
  if (found.from === found.to) return { outcome: 'ignored', payment: null };
  const lookbackMs = s.config.detection.lookbackSeconds * 1000;
  const sanctioned = await senderSanctioned(s, found, network.family);

  return s.runtime.write(async (tx) => {
    await guard?.(tx);
    const { payments, intents, submissions } = tx.repos;
    const known = await payments.findByTx(found.chain, found.txSignature);
    if (known) {
      // Seen before (another scan, or an earlier commitment): only a deeper commitment is news.
      if (known.status === 'matched' && known.intentId !== null) {
        const cur = await tx.get(known.intentId);
        if (cur && cur.txSignature === found.txSignature) await advance(tx, cur, found);
      } else if (known.reason === 'ambiguous') {
        // A submit by txSignature settled which intent it pays: the ledger says so too.
        const paid = await intents.findByTxSignature(found.chain, found.txSignature);
        if (paid) {
          // Into the paying intent's ledger: its account may not be the one the record was written under.
          await payments.settle(known.id, paid);
          const settled = { ...known, status: 'matched' as const, reason: null, intentId: paid.id, accountId: paid.accountId, mode: paid.mode };
          return { outcome: 'known' as const, payment: toPaymentWire(settled) };
        }
      }
      return { outcome: 'known' as const, payment: toPaymentWire(known) };
    }
    const decided = await decide(tx, found, lookbackMs);
    if (decided === null) return { outcome: 'ignored' as const, payment: null };
    const verdict = sanctioned && !(await toldBefore(tx, found)) ? refuse(decided) : decided;
    const base = {
      id: newId('pay'),
      chain: found.chain,
      token: token[0],
      tokenAddress: found.tokenAddress,
      decimals: token[1].decimals,
      amountBaseUnits: found.amountBaseUnits,
      from: found.from,
      to: found.to,
      txSignature: found.txSignature,
      detectedAt: tx.now,
    };
    const record = async (owner: StoredIntent, intentId: string | null, status: PaymentStatus, reason: PaymentReason | null) => {
      const p: PaymentRecord = { ...base, accountId: owner.accountId, mode: owner.mode, intentId, status, reason };
      await payments.insert(p);
      return toPaymentWire(p);
    };

    if (verdict.kind === 'drive') {
      const i = verdict.intent;
      // Followed like a submitted transaction (known by id only: never rebroadcast). A submit's own
      // row for the same transaction is kept as it is.
      if (!(await submissions.findByTx(found.chain, found.txSignature))) {
        await submissions.record({
          intentId: i.id, chain: found.chain, txSignature: found.txSignature, signer: found.from, signedTransaction: null,
          watchData: found.watchData ?? {}, source: 'detected', status: 'sent', createdAt: tx.now,
        });
      }
      // Its payer is its fulfiller (README: fulfiller = the sender), whom a refund pays. They differ
      // only when the transfer carries the intent's Solana reference (contract 11: it pays the
      // intent whoever sends it), e.g. after another wallet's build attached itself.
      let cur = i;
      if (hasTag(cur, 'payable')) {
        cur = (await tx.apply(cur, { type: 'SUBMIT', at: tx.now, txSignature: found.txSignature }, 'throw', {
          fulfiller: found.from,
          signedTransaction: null,
          watchData: found.watchData ?? {},
        }))!;
      } else if (inFlight(cur) && cur.txSignature !== found.txSignature) {
        // A different transfer paid it while our transaction was in flight: follow the one that landed.
        cur = await tx.patch(cur, { fulfiller: found.from, signedTransaction: null, watchData: found.watchData ?? {} });
      }
      await advance(tx, cur, found);
      // Found on chain at confirmed depth or deeper: it landed.
      await submissions.setOutcome(found.chain, found.txSignature, 'landed', tx.now);
      return { outcome: 'recorded' as const, payment: await record(i, i.id, 'matched', null) };
    }
    if (verdict.kind === 'late') {
      const i = verdict.intent;
      const late = await tx.patch(i, {
        latePayment: { txSignature: found.txSignature, amountBaseUnits: found.amountBaseUnits, from: found.from, detectedAt: tx.now },
      });
      await tx.event({ type: 'intent.late_payment', accountId: i.accountId, mode: i.mode, intentId: i.id, data: { intent: toWire(late) } });
      return { outcome: 'recorded' as const, payment: await record(i, i.id, 'late', 'intent_closed') };
    }
    const payment = await record(verdict.account, verdict.intent?.id ?? null, 'unmatched', verdict.reason);
    await tx.event({
      type: 'payment.unmatched', accountId: verdict.account.accountId, mode: verdict.account.mode, intentId: payment.intentId, data: { payment },
    });
    return { outcome: 'recorded' as const, payment };
  });
}

/**
 * Contract 6 screens a payment's signer at submit; a transfer found on chain gets the same check.
 * A match moves no intent (see refuse); an unreachable provider throws, nothing is written, and
 * the detector reports the transfer again next poll (as submit answers 503 and writes nothing).
 */
async function senderSanctioned(s: Services, ft: FoundTransfer, family: 'solana' | 'evm'): Promise<boolean> {
  try {
    await s.screener.screen([{ address: ft.from, param: 'from', family }]);
    return false;
  } catch (e) {
    if (e instanceof AppError && e.code === 'address.sanctions_match') return true;
    throw e;
  }
}

/** The transaction was submitted for an intent (its signer screened then) or already drove one. */
async function toldBefore(tx: Tx, ft: FoundTransfer): Promise<boolean> {
  const { submissions, intents } = tx.repos;
  return (await submissions.findByTx(ft.chain, ft.txSignature)) !== null || (await intents.findByTxSignature(ft.chain, ft.txSignature)) !== null;
}

/** Money from a sanctioned sender pays nothing: it is kept in view, unmatched, naming the intent it would have paid. */
function refuse(v: Verdict): Verdict {
  if (v.kind === 'unmatched') return { ...v, reason: 'sanctions_match' };
  return { kind: 'unmatched', reason: 'sanctions_match', intent: v.intent, account: v.intent };
}

/**
 * Move a driven intent as far as the transfer's commitment allows (each step's events, in order:
 * pending -> finalized emits confirmed then finalized). The machine ignores a report that does not
 * apply where the intent is (confirmed again, or anything once finalized).
 */
async function advance(tx: Tx, cur: StoredIntent, ft: FoundTransfer): Promise<void> {
  const type = ft.commitment === 'finalized' ? 'CHAIN_FINALIZED' : 'CHAIN_CONFIRMED';
  // Where the detector saw it land (EVM seenBlock, Solana slot) travels with the verdict: a watcher
  // that never read the receipt itself needs it to tell a reorg from a node that is behind (contract 14).
  const patch = ft.watchData && cur.txSignature === ft.txSignature ? { watchData: { ...(cur.watchData ?? {}), ...ft.watchData } } : undefined;
  await tx.apply(cur, { type, at: tx.now, txSignature: ft.txSignature }, 'ignore', patch);
}

/** The matching rules of contract section 11, strongest evidence first. null: not PayForge's business. */
async function decide(tx: Tx, ft: FoundTransfer, lookbackMs: number): Promise<Verdict | null> {
  const { intents, submissions } = tx.repos;
  // 1. The transaction is already recorded for an intent (submit, submit by id): it concerns that one only.
  const ownerId =
    (await intents.findByTxSignature(ft.chain, ft.txSignature))?.id ?? (await submissions.findByTx(ft.chain, ft.txSignature))?.intentId ?? null;
  const owner = ownerId === null ? null : await tx.get(ownerId);
  if (owner) return judgeOne(tx, owner, ft);
  // 2. It carries an intent's Solana Pay reference: that intent and no other.
  for (const ref of ft.references) {
    const i = await intents.findBySolanaReference(ref);
    if (i && i.chain === ft.chain && i.requestor === ft.to) return judgeOne(tx, (await tx.get(i.id)) ?? i, ft);
  }
  // 3. By receiver, token, amount and sender: chosen from one plain read of the candidates (up to
  // 1000; locking each would hold every one of them for the rest of this transaction on
  // PostgreSQL). Only the intent the verdict moves is then locked and read again: if a write
  // committed on it in between, decide again (on SQLite the batch holds the file, nothing moves).
  // Each round that does not settle needs a commit on a row not locked yet: it ends.
  for (;;) {
    const candidates = await intents.listByReceiver(ft.chain, ft.to, ft.tokenAddress, tx.now - lookbackMs, { amountBaseUnits: ft.amountBaseUnits, from: ft.from });
    const v = byReceiver(candidates, ft);
    if (v === null || v.kind === 'unmatched') return v;
    const locked = await tx.get(v.intent.id);
    if (locked === null || !Bun.deepEquals(locked, v.intent)) continue;
    return v.kind === 'judge' ? judgeOne(tx, locked, ft) : { kind: 'drive', intent: locked };
  }
}

/** Contract 11's rules by receiver over the candidates as read: the verdict, or the one intent to judge alone. */
function byReceiver(all: StoredIntent[], ft: FoundTransfer): Verdict | { kind: 'judge'; intent: StoredIntent } | null {
  if (all.length === 0) return null;
  const eligible = all.filter(
    (i) => i.createdAt <= ft.landedAt + BLOCK_TIME_SLACK_MS && (i.fulfiller === null || i.fulfiller === ft.from),
  );
  const exact = eligible.filter((i) => i.amountBaseUnits === ft.amountBaseUnits);
  const payable = exact.filter((i) => open(i) && !pastExpiry(i, ft));
  if (payable.length === 1) return { kind: 'drive', intent: payable[0]! };
  if (payable.length > 1) return { kind: 'unmatched', reason: 'ambiguous', intent: null, account: payable[0]! };
  const ended = exact.filter((i) => closed(i) || (open(i) && pastExpiry(i, ft)));
  if (ended.length === 1) return { kind: 'judge', intent: ended[0]! };
  if (ended.length > 1) return { kind: 'unmatched', reason: 'ambiguous', intent: null, account: ended[0]! };
  const done = exact.filter(paid);
  if (done.length > 0) return { kind: 'unmatched', reason: 'duplicate', intent: done.length === 1 ? done[0]! : null, account: done[0]! };
  const wrongAmount = eligible.filter(open);
  if (wrongAmount.length > 0) {
    return { kind: 'unmatched', reason: 'amount_mismatch', intent: wrongAmount.length === 1 ? wrongAmount[0]! : null, account: wrongAmount[0]! };
  }
  return { kind: 'unmatched', reason: 'no_open_intent', intent: null, account: all[0]! };
}

/** A transfer that can only concern this one intent. */
async function judgeOne(tx: Tx, i: StoredIntent, ft: FoundTransfer): Promise<Verdict> {
  if (i.amountBaseUnits !== ft.amountBaseUnits || i.tokenAddress !== ft.tokenAddress || i.requestor !== ft.to) {
    return { kind: 'unmatched', reason: 'amount_mismatch', intent: i, account: i };
  }
  // Its own transaction (submitted, or found before): drive it on, or record it as the match of an
  // intent the watcher already finalized.
  if (i.txSignature === ft.txSignature && (open(i) || paid(i))) return { kind: 'drive', intent: i };
  if (open(i) && pastExpiry(i, ft)) {
    // The deadline passed before the money landed: close it as the timer would have, then it is late.
    const expired = (await tx.apply(i, { type: 'EXPIRE', at: tx.now }, 'ignore')) ?? i;
    if (closed(expired)) return lateOrDuplicate(expired, ft);
  }
  if (open(i)) return { kind: 'drive', intent: i };
  if (closed(i)) return lateOrDuplicate(i, ft);
  return { kind: 'unmatched', reason: 'duplicate', intent: i, account: i };
}

function lateOrDuplicate(i: StoredIntent, ft: FoundTransfer): Verdict {
  // A second late transfer: the payer paid twice and is owed that one back too.
  if (i.latePayment !== null && i.latePayment.txSignature !== ft.txSignature) return { kind: 'unmatched', reason: 'duplicate', intent: i, account: i };
  return { kind: 'late', intent: i };
}

/** A transfer that landed after the deadline of an intent with nothing in flight cannot pay it. */
function pastExpiry(i: StoredIntent, ft: FoundTransfer): boolean {
  return !inFlight(i) && ft.landedAt > i.expiresAt + BLOCK_TIME_SLACK_MS;
}
