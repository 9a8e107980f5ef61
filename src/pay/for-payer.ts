// A verb's refusal as a payment link's holder may read it. The link is a capability for paying
// ONE intent, and it travels (forwarded, shared, on a screen): the address of a wallet already
// attached to the payment (the merchant's `fulfiller`, or the wallet whose build attached itself)
// says who else pays, so it never leaves through the public routes. The API's refusals keep it:
// there the caller is the merchant.
import { AppError } from '../domain/errors';

const OTHER_WALLET = 'This payment was started from another wallet: pay from that wallet.';

/** The fields a transaction.mismatch names, from whichever shape its verifier wrote. */
function fieldsOf(details: Record<string, unknown>): string[] {
  const list = (details.differences ?? details.mismatches) as Array<{ field?: unknown }> | undefined;
  if (Array.isArray(list)) return list.map((d) => String(d.field));
  return typeof details.field === 'string' ? [details.field] : [];
}

/** Rethrows `e`, without the attached wallet's address when it names one. */
export function forPayer(e: unknown): never {
  if (!(e instanceof AppError)) throw e;
  // Build for another wallet than the one attached (resolveFulfiller: details.fulfiller).
  if (e.code === 'request.invalid_param' && e.param === 'fulfiller' && 'fulfiller' in e.details) {
    throw new AppError(e.code, OTHER_WALLET, { param: e.param, cause: e });
  }
  // A submit whose signer is not the fulfiller (EVM verify, Solana feePayer, the claim's re-check).
  if (e.code === 'transaction.mismatch') {
    const fields = fieldsOf(e.details);
    const wrongWallet = fields.some((f) => f === 'signer' || f === 'feePayer');
    const message = wrongWallet ? OTHER_WALLET : `The transaction does not pay this payment: ${fields.join(', ')} differ.`;
    throw new AppError(e.code, message, { param: e.param, details: { fields }, cause: e });
  }
  throw e;
}
