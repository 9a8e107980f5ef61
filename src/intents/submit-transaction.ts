// Submit the signed transaction: decode and check it pays this intent, screen the signer,
// broadcast through the RPC pool, then one write moves the intent to pending with the bytes the
// watcher rebroadcasts. Idempotent on the signature; one submit per intent at a time, so a
// second, different transaction is refused before it is ever broadcast.
import type { Caller } from '../domain/caller';
import { AppError, invalidParam } from '../domain/errors';
import { toWire, type PaymentIntentWire } from '../domain/intent';
import { chainIntent, checkPayable, resolveFulfiller } from './build-transaction';
import { ownedBy } from './load-intent';
import type { Services } from './services';

export interface SubmitTransactionResult {
  intent: PaymentIntentWire;
  txSignature: string;
}

const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;
const submitting = new Set<string>();

export async function submitTransaction(
  s: Services,
  caller: Caller,
  id: string,
  body: { signedTransaction?: unknown; fulfiller?: unknown },
): Promise<SubmitTransactionResult> {
  const raw = body.signedTransaction;
  if (typeof raw !== 'string' || raw.length === 0 || raw.length % 4 !== 0 || !BASE64_RE.test(raw)) {
    throw invalidParam('signedTransaction', 'signedTransaction must be the base64-encoded signed transaction.');
  }
  const cur = ownedBy(caller, s.intents.get(id), id);
  // With no transaction recorded there is no idempotent replay to honour: an expired, cancelled
  // or fulfilled intent answers its 409 before any decoding or RPC work.
  if (cur.txSignature === null) checkPayable(cur, Date.now());
  const network = s.chains.network(cur.chain)!;
  const adapter = s.chains.adapter(network.family);
  const pool = s.chains.pool(cur.chain);
  const { fulfiller } = resolveFulfiller(s, cur, body.fulfiller);
  const verified = await adapter.verifySubmission(network, pool, chainIntent(cur, fulfiller), raw, cur.buildData);
  if (verified.txSignature === cur.txSignature) return { intent: toWire(cur), txSignature: verified.txSignature };
  const other = s.intents.findByTxSignature(cur.chain, verified.txSignature);
  if (other) {
    throw new AppError('transaction.already_submitted', 'This transaction was already submitted for another intent.', {
      param: 'signedTransaction',
      details: { tx_signature: verified.txSignature },
    });
  }
  checkPayable(cur, Date.now());
  if (submitting.has(id)) {
    throw new AppError('idempotency.in_progress', 'Another submit for this intent is in progress; retry shortly.', {
      details: { intent_id: id },
    });
  }
  submitting.add(id);
  try {
    await s.screener.screen([{ address: verified.signer, param: 'fulfiller', family: network.family }]);
    await adapter.broadcast(network, pool, verified);
    const intent = await s.runtime.write((tx) => {
      const now = ownedBy(caller, tx.get(id), id);
      if (now.txSignature === verified.txSignature) return now;
      checkPayable(now, tx.now);
      return tx.apply(now, { type: 'SUBMIT', at: tx.now, txSignature: verified.txSignature }, 'throw', {
        fulfiller: now.fulfiller ?? adapter.normalizeAddress(verified.signer),
        signedTransaction: verified.signedTransaction,
        watchData: verified.watchData,
      })!;
    });
    return { intent: toWire(intent), txSignature: verified.txSignature };
  } finally {
    submitting.delete(id);
  }
}
