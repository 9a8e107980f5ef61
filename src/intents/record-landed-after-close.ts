// The recorded transaction of an intent that closed unpaid (dropped, failed, expired, cancelled)
// landed after all (contract 14, "never out of sight"): hand it to the matcher as a found transfer,
// which drives the intent when it is still payable and otherwise records a late payment (or a
// duplicate), exactly as for a transfer the detectors find. The transaction was verified to pay
// this intent when it was recorded (submit, submit by id, detection), so its facts are the intent's.
import type { FoundTransfer } from '../chains/types';
import type { StoredIntent } from '../store/intents';
import { recordFoundTransfer } from './record-found-transfer';
import type { Services } from './services';

export async function recordLandedAfterClose(s: Services, row: StoredIntent, commitment: 'confirmed' | 'finalized'): Promise<void> {
  const txSignature = row.txSignature;
  if (txSignature === null) return;
  const recorded = await s.submissions.findByTx(row.chain, txSignature);
  const watchData = recorded?.watchData ?? row.watchData ?? {};
  const ft: FoundTransfer = {
    chain: row.chain,
    txSignature,
    tokenAddress: row.tokenAddress,
    from: recorded?.signer ?? row.fulfiller ?? String(watchData.from ?? ''),
    to: row.requestor,
    amountBaseUnits: row.amountBaseUnits,
    references: row.solanaReference === null ? [] : [row.solanaReference],
    // Seen landed now (the watcher reports no block time): a late landing is judged as late.
    landedAt: Date.now(),
    commitment,
    watchData,
  };
  s.log('warn', 'a closed intent\'s transaction landed', { intent_id: row.id, state: row.state, tx_signature: txSignature, commitment });
  await recordFoundTransfer(s, ft);
}
