// Submit by transaction id (contract 11): the payer's wallet already sent it. Read it from the
// chain, check it pays this intent exactly, screen the signer, and in ONE write record it and move
// the intent to pending, then on to confirmed and finalized when the chain already says so.
import type { Caller } from '../domain/caller';
import { AppError, invalidParam } from '../domain/errors';
import { toWire } from '../domain/intent';
import { chainIntent, checkPayable, resolveFulfiller } from './build-transaction';
import { hasTag } from '../../machines/judge';
import { ownedBy } from './load-intent';
import { applySent, claimSubmission, type SubmitTransactionResult } from './record-submission';
import type { Services } from './services';

export async function submitByTxSignature(
  s: Services,
  caller: Caller,
  input: { id: string; txSignature: string; fulfiller?: string },
): Promise<SubmitTransactionResult> {
  const { id, txSignature: given, fulfiller: givenFulfiller } = input;
  if (given.length === 0 || given.length > 128) {
    throw invalidParam('txSignature', 'txSignature must be a Solana signature (base58) or an EVM transaction hash (0x + 64 hex).');
  }
  const cur = ownedBy(caller, await s.intents.get(id), id);
  if (cur.txSignature === null) await checkPayable(cur, Date.now(), (o) => s.intents.get(o));
  const network = s.chains.network(cur.chain)!;
  const adapter = s.chains.adapter(network.family);
  const { fulfiller } = resolveFulfiller(s, cur, givenFulfiller);
  const found = await adapter.fetchSubmitted(network, s.chains.pool(cur.chain), chainIntent(cur, fulfiller), given);
  if (found.txSignature === cur.txSignature) return { intent: toWire(cur), txSignature: found.txSignature };
  if (found.commitment === 'failed') {
    throw new AppError('transaction.rejected', 'This transaction failed on chain: it pays nothing.', {
      param: 'txSignature',
      details: { tx_signature: found.txSignature, intent_id: id },
    });
  }
  await s.screener.screen([{ address: found.signer, param: 'fulfiller', family: network.family }]);

  const intent = await s.runtime.write(async (tx) => {
    const claim = await claimSubmission(tx, s, caller, id, {
      chain: cur.chain,
      txSignature: found.txSignature,
      signer: adapter.normalizeAddress(found.signer),
      signedTransaction: null,
      watchData: found.watchData,
      source: 'txid',
    }, { param: 'txSignature', ownsBroadcastKey: false });
    // Nothing to broadcast: the chain already has it, so it is sent in the same write. Already
    // recorded (detection may have found it first and confirmed it): still moved as far as the
    // chain says now, so the answer is never behind what this request read.
    const sent = claim.kind === 'done' ? claim.intent : (await applySent(tx, (await tx.repos.submissions.findByTx(cur.chain, found.txSignature))!))!;
    if (found.commitment === 'pending' || sent.txSignature !== found.txSignature) return sent;
    // pending -> finalized emits intent.confirmed then intent.finalized, in order; the machine
    // ignores a report that does not apply to where the intent now is (finalized already).
    const type = found.commitment === 'finalized' ? 'CHAIN_FINALIZED' : 'CHAIN_CONFIRMED';
    const next = (await tx.apply(sent, { type, at: tx.now, txSignature: found.txSignature }, 'ignore')) ?? sent;
    if (claim.kind === 'claimed' && hasTag(next, 'paid')) await tx.repos.submissions.setOutcome(cur.chain, found.txSignature, 'landed', tx.now);
    return next;
  });
  return { intent: toWire(intent), txSignature: found.txSignature };
}
