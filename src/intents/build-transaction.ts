// Build the unsigned transaction the fulfiller's wallet signs. No state change: the intent
// remembers its fulfiller and the build facts (blockhash, nonce ...) for submit and the watcher.
import type { BuiltTransaction, ChainIntent } from '../chains/types';
import type { Caller } from '../domain/caller';
import { AppError, invalidParam } from '../domain/errors';
import { toWire, type PaymentIntentWire } from '../domain/intent';
import { hasTag, invalidState, judge } from '../../machines/judge';
import type { Awaitable } from '../store/awaitable';
import type { StoredIntent } from '../store/intents';
import { ownedBy } from './load-intent';
import { refuseSelfPayment, resolveAddress } from './resolve-chain';
import type { Services } from './services';

export interface BuildTransactionResult {
  intent: PaymentIntentWire;
  transaction: BuiltTransaction;
}

/**
 * Build and submit share this: may a transaction for `i` be sent now? The machine answers
 * (already_fulfilled, expired, invalid_state); a refund also needs its original still paid, since
 * a reorg can move the original back (contract section 4: `original_not_paid`).
 */
export async function checkPayable(i: StoredIntent, now: number, get: (id: string) => Awaitable<StoredIntent | null>): Promise<void> {
  judge(i, { type: 'SUBMIT', at: now, txSignature: i.txSignature ?? '' });
  if (i.refundOf === null) return;
  const original = await get(i.refundOf);
  if (original && !hasTag(original, 'paid') && original.latePayment === null) {
    throw invalidState(i, `The intent this refunds (${original.id}) is ${original.state}, not paid: its refund waits.`, {
      reason: 'original_not_paid',
      refund_of: original.id,
      original_state: original.state,
    });
  }
}

export function chainIntent(i: StoredIntent, fulfiller: string | null): ChainIntent {
  return {
    id: i.id, chain: i.chain, token: i.token, tokenAddress: i.tokenAddress, decimals: i.decimals,
    amountBaseUnits: i.amountBaseUnits, requestor: i.requestor, fulfiller, solanaReference: i.solanaReference,
  };
}

/** The intent's fulfiller, or the one the body attaches (validated; must agree if both exist). */
export function resolveFulfiller(s: Services, i: StoredIntent, given: unknown): { fulfiller: string | null; isNew: boolean } {
  const network = s.chains.network(i.chain)!;
  if (given === undefined || given === null) return { fulfiller: i.fulfiller, isNew: false };
  const f = resolveAddress(s.chains, network, 'fulfiller', given);
  refuseSelfPayment('fulfiller', f, i.requestor);
  if (i.fulfiller !== null) {
    const same = network.family === 'evm' ? f.toLowerCase() === i.fulfiller.toLowerCase() : f === i.fulfiller;
    if (!same) throw invalidParam('fulfiller', 'fulfiller differs from the fulfiller already attached to this intent.', { fulfiller: i.fulfiller });
    return { fulfiller: i.fulfiller, isNew: false };
  }
  return { fulfiller: f, isNew: true };
}

/** Builds that found another build committed meanwhile and started again, at most (each needs a new concurrent build). */
const BUILD_ATTEMPTS = 5;

export async function buildTransaction(s: Services, caller: Caller, input: { id: string; fulfiller?: string }): Promise<BuildTransactionResult> {
  for (let attempt = 1; ; attempt++) {
    const r = await buildOnce(s, caller, input);
    if (r !== null) return r;
    if (attempt >= BUILD_ATTEMPTS) {
      throw new AppError('idempotency.in_progress', 'Another build for this intent is under way; retry shortly.', { details: { intent_id: input.id } });
    }
  }
}

/** One build from the row as read; null when another build committed in between (start again from the row). */
async function buildOnce(s: Services, caller: Caller, input: { id: string; fulfiller?: string }): Promise<BuildTransactionResult | null> {
  const { id } = input;
  const cur = ownedBy(caller, await s.intents.get(id), id);
  await checkPayable(cur, Date.now(), (o) => s.intents.get(o));
  const network = s.chains.network(cur.chain)!;
  const { fulfiller, isNew } = resolveFulfiller(s, cur, input.fulfiller);
  if (fulfiller === null) throw invalidParam('fulfiller', 'fulfiller is required: this intent has no fulfiller yet.');
  if (isNew) await s.screener.screen([{ address: fulfiller, param: 'fulfiller', family: network.family }]);
  const adapter = s.chains.adapter(network.family);
  const pool = s.chains.pool(cur.chain);
  const target = chainIntent(cur, fulfiller);
  // Idempotent (contract 14): while the last built transaction can still land, it is the answer.
  const built =
    (await adapter.reuseBuild?.(network, pool, target, fulfiller, cur.buildData)) ?? (await adapter.build(network, pool, target, fulfiller));
  const intent = await s.runtime.write(async (tx) => {
    const now = ownedBy(caller, await tx.get(id), id);
    await checkPayable(now, tx.now, tx.get);
    // Another build committed since `cur` was read (builds at once: two wallets answering one QR,
    // a double click): its transaction is out and may land. Writing this one over it would hand
    // out a second, independently valid payment (and, for another wallet, swap the fulfiller).
    // Start again from the row: the same fulfiller gets that build back, another one is refused.
    if (now.fulfiller !== cur.fulfiller || !Bun.deepEquals(now.buildData, cur.buildData)) return null;
    return tx.patch(now, { fulfiller, buildData: built.buildData, ataRentLamports: built.ataRentLamports });
  });
  return intent === null ? null : { intent: toWire(intent), transaction: built.transaction };
}
