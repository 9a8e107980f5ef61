// Submit the signed transaction: check it pays this intent, screen the signer, then ONE write
// re-reads the intent, checks it is payable at that instant and records the transaction
// `sending` (write-ahead); only after that commit is it broadcast, and a second write moves the
// intent to pending. A second, different transaction is refused before it is ever broadcast.
import type { Caller } from '../domain/caller';
import { AppError, invalidParam } from '../domain/errors';
import { toWire } from '../domain/intent';
import { RpcUnavailableError } from '../rpc/types';
import { chainIntent, checkPayable, resolveFulfiller } from './build-transaction';
import { ownedBy } from './load-intent';
import { applySent, claimSubmission, type SubmitTransactionResult } from './record-submission';
import type { Services } from './services';
import { submitByTxSignature } from './submit-by-tx-signature';

export type { SubmitTransactionResult };

const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

/** A broadcast failure that proves no upstream received the bytes: the intent stays payable. */
function definitelyNotSent(e: unknown): boolean {
  if (e instanceof RpcUnavailableError) return !e.mayHaveReached;
  return e instanceof AppError && e.code === 'transaction.rejected';
}

/** Exactly one of signedTransaction (PayForge broadcasts) or txSignature (the wallet already sent it). */
export interface SubmitTransactionInput {
  id: string;
  signedTransaction?: string;
  txSignature?: string;
  fulfiller?: string;
}

export async function submitTransaction(s: Services, caller: Caller, input: SubmitTransactionInput): Promise<SubmitTransactionResult> {
  const { id, ...body } = input;
  if ((body.signedTransaction === undefined) === (body.txSignature === undefined)) {
    throw invalidParam('txSignature', 'Give exactly one of signedTransaction (the signed bytes) or txSignature (the id of a sent transaction).');
  }
  if (body.txSignature !== undefined) return submitByTxSignature(s, caller, { id, txSignature: body.txSignature, fulfiller: body.fulfiller });
  const raw = body.signedTransaction;
  if (raw === undefined || raw.length === 0 || raw.length % 4 !== 0 || !BASE64_RE.test(raw)) {
    throw invalidParam('signedTransaction', 'signedTransaction must be the base64-encoded signed transaction.');
  }
  const cur = ownedBy(caller, await s.intents.get(id), id);
  // With no transaction recorded there is no idempotent replay to honour: an expired, cancelled
  // or fulfilled intent answers its 409 before any decoding or RPC work.
  if (cur.txSignature === null) await checkPayable(cur, Date.now(), (o) => s.intents.get(o));
  const network = s.chains.network(cur.chain)!;
  const adapter = s.chains.adapter(network.family);
  const pool = s.chains.pool(cur.chain);
  const { fulfiller } = resolveFulfiller(s, cur, body.fulfiller);
  const verified = await adapter.verifySubmission(network, pool, chainIntent(cur, fulfiller), raw, cur.buildData);
  if (verified.txSignature === cur.txSignature) return { intent: toWire(cur), txSignature: verified.txSignature };
  await s.screener.screen([{ address: verified.signer, param: 'fulfiller', family: network.family }]);

  // Claimed before the write-ahead record commits, so reconciliation never takes a live broadcast for a dead one.
  if (!(await s.submissions.claimBroadcast(cur.chain, verified.txSignature))) {
    throw new AppError('idempotency.in_progress', 'This transaction is being submitted; retry shortly.', { details: { intent_id: id } });
  }
  try {
    const claim = await s.runtime.write((tx) =>
      claimSubmission(tx, s, caller, id, {
        chain: cur.chain,
        txSignature: verified.txSignature,
        signer: adapter.normalizeAddress(verified.signer),
        signedTransaction: verified.signedTransaction,
        watchData: verified.watchData,
        source: 'submit',
      }, { param: 'signedTransaction', ownsBroadcastKey: true }),
    );
    if (claim.kind === 'done') return { intent: toWire(claim.intent), txSignature: verified.txSignature };

    try {
      await adapter.broadcast(network, pool, verified);
    } catch (e) {
      if (!definitelyNotSent(e)) {
        // Timeout or 5xx after the bytes left: it counts as sent; the watcher rebroadcasts and decides.
        s.log('warn', 'broadcast outcome unknown; recorded as sent', { intent_id: id, tx_signature: verified.txSignature, error: String(e) });
      } else {
        await s.runtime.write(async (tx) => tx.repos.submissions.markRejected(cur.chain, verified.txSignature, tx.now));
        throw e;
      }
    }
    const intent = await s.runtime.write(async (tx) => {
      s.faults?.afterBroadcast?.(id);
      const row = (await tx.repos.submissions.findByTx(cur.chain, verified.txSignature))!;
      return (await applySent(tx, row))!;
    });
    return { intent: toWire(ownedBy(caller, intent, id)), txSignature: verified.txSignature };
  } finally {
    await s.submissions.releaseBroadcast(cur.chain, verified.txSignature);
  }
}
