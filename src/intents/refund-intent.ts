// Refund a confirmed or finalized intent: a new, linked intent in the other direction (its
// requestor is the original fulfiller). Both links are written in one transaction.
import type { Caller } from '../domain/caller';
import { AppError } from '../domain/errors';
import { newSolanaReference } from '../domain/base58';
import { newId } from '../domain/ids';
import { toWire, type PaymentIntentWire } from '../domain/intent';
import { hasTag, invalidState } from '../../machines/judge';
import type { Awaitable } from '../store/awaitable';
import type { StoredIntent } from '../store/intents';
import { FRESH_LIFECYCLE } from './fresh-intent';
import { ownedBy } from './load-intent';
import type { Services } from './services';
import { newPayToken } from '../domain/pay-url';

export function requirePro(caller: Caller, feature: string): void {
  if (caller.plan !== 'pro') {
    throw new AppError('plan.upgrade_required', `${feature} requires the pro plan.`, { details: { feature } });
  }
}

/** A closed intent whose money arrived late is refunded for the late amount, to its sender. */
const lateRefund = (i: StoredIntent) => (hasTag(i, 'paid') ? null : i.latePayment);

/**
 * A refund blocks the next one while it can still pay or has paid (created, pending, dropped,
 * confirmed, finalized, or closed with money that arrived late); one that ended unpaid does not.
 */
const blocks = (r: StoredIntent | null): boolean => r !== null && (!hasTag(r, 'closed') || r.latePayment !== null);

/** Contract section 4's refund rules; `get` reads inside the caller's transaction when there is one. */
async function checkRefundable(i: StoredIntent, get: (id: string) => Awaitable<StoredIntent | null>): Promise<void> {
  if (i.refundOf !== null) {
    throw invalidState(i, `Intent ${i.id} is itself a refund (of ${i.refundOf}): a refund cannot be refunded.`, {
      reason: 'refund_of_refund',
      refund_of: i.refundOf,
    });
  }
  if (!hasTag(i, 'refundable') && i.latePayment === null) {
    throw invalidState(i, `Only a confirmed or finalized intent (or one paid late) can be refunded; this one is ${i.state}.`);
  }
  // Every refund made so far (older rows may name one in refundedBy only).
  const made = i.refunds.length > 0 ? i.refunds : i.refundedBy === null ? [] : [i.refundedBy];
  let blocking: string | undefined;
  for (const id of made) if (blocking === undefined && blocks(await get(id))) blocking = id;
  if (blocking !== undefined) {
    throw new AppError('intent.already_refunded', `Intent ${i.id} was already refunded by ${blocking}.`, {
      details: { intent_id: i.id, refunded_by: blocking },
    });
  }
  // Nothing is wrong with the state: the refund's recipient is missing (an intent created without
  // `fulfiller` and confirmed by simulate, or paid before one was recorded).
  if (i.fulfiller === null && lateRefund(i) === null) {
    throw new AppError(
      'intent.fulfiller_required',
      `Intent ${i.id} has no fulfiller, so a refund has no one to pay. Set it when you create the intent ("fulfiller"), or pass it to build or submit before the payment; a payment detected on chain records its payer.`,
      { param: 'fulfiller', details: { intent_id: i.id } },
    );
  }
}

export async function refundIntent(s: Services, caller: Caller, { id }: { id: string }): Promise<{ intent: PaymentIntentWire }> {
  requirePro(caller, 'refunds');
  const original = ownedBy(caller, await s.intents.get(id), id);
  await checkRefundable(original, (r) => s.intents.get(r));
  const family = original.chain.startsWith('solana:') ? 'solana' : 'evm';
  await s.screener.screen([{ address: lateRefund(original)?.from ?? original.fulfiller!, param: 'requestor', family }]);
  const refund = await s.runtime.write(async (tx) => {
    const cur = ownedBy(caller, await tx.get(id), id);
    await checkRefundable(cur, tx.get);
    const ttlSeconds = s.config.intents.defaultTtlSeconds;
    const late = lateRefund(cur);
    const created = await tx.insert({
      id: newId('pi'),
      accountId: cur.accountId,
      mode: cur.mode,
      chain: cur.chain,
      token: cur.token,
      tokenAddress: cur.tokenAddress,
      decimals: cur.decimals,
      amountBaseUnits: late?.amountBaseUnits ?? cur.amountBaseUnits,
      requestor: late?.from ?? cur.fulfiller!,
      fulfiller: cur.requestor,
      direction: 'request',
      reference: cur.reference,
      metadata: {},
      idempotencyKey: null,
      ttlSeconds,
      expiresAt: tx.now + ttlSeconds * 1000,
      createdAt: tx.now,
      updatedAt: tx.now,
      refundOf: cur.id,
      solanaReference: family === 'solana' ? newSolanaReference() : null,
      payToken: newPayToken(),
      ...FRESH_LIFECYCLE,
    });
    const earlier = cur.refunds.length > 0 ? cur.refunds : cur.refundedBy === null ? [] : [cur.refundedBy];
    await tx.patch(cur, { refundedBy: created.id, refunds: [...earlier, created.id] });
    return created;
  });
  return { intent: toWire(refund) };
}
