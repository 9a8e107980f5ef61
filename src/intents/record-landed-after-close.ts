// A recorded transaction landed that its intent's row no longer watches (contract 14, "never out
// of sight"): the intent closed unpaid (dropped, failed, expired, cancelled), or it follows another
// transaction now (a detected transfer drove it while this one's verdict waited). Hand it to the
// matcher as a found transfer, which drives the intent when it is still payable (or in flight) and
// otherwise records a late payment or a duplicate, exactly as for a transfer the detectors find.
// The transaction was verified to pay this intent when it was recorded (submit, submit by id,
// detection), so its facts are the intent's.
import type { FoundTransfer } from '../chains/types';
import type { StoredIntent } from '../store/intents';
import { recordFoundTransfer } from './record-found-transfer';
import type { Services } from './services';

/** `landed`: the transaction seen landed, and the one it was followed as (an EVM repriced copy differs). */
export async function recordLandedAfterClose(
  s: Services,
  row: StoredIntent,
  landed: { txSignature: string; follows: string },
  commitment: 'confirmed' | 'finalized',
): Promise<void> {
  const recorded = (await s.submissions.findByTx(row.chain, landed.follows)) ?? (await s.submissions.findByTx(row.chain, landed.txSignature));
  // The row's own facts describe this transaction only while the row still names it.
  const own = row.txSignature === landed.follows || row.txSignature === landed.txSignature;
  const watchData = recorded?.watchData ?? (own ? row.watchData : null) ?? {};
  const ft: FoundTransfer = {
    chain: row.chain,
    txSignature: landed.txSignature,
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
  s.log('warn', own ? "a closed intent's transaction landed" : 'a transaction the intent no longer follows landed', {
    intent_id: row.id, state: row.state, tx_signature: landed.txSignature, commitment,
  });
  await recordFoundTransfer(s, ft);
}
