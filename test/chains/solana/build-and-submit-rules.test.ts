// Contract 14 on the Solana adapter's build and submit side, against the local LiteSVM cluster:
// the source of a transfer is checked before broadcast (a delegate's self-transfer, a delegate
// spending a stranger's account), build is idempotent while its blockhash is valid, and bytes
// the chain already has are never "rejected", even after their blockhash expired.
import { generateKeyPairSigner } from '@solana/kit';
import { describe, expect, test } from 'vitest';
import { solanaAdapter } from '../../../src/chains/solana/adapter';
import type { Network } from '../../../src/chains/types';
import type { RpcPool } from '../../../src/rpc/types';
import { DEVNET_USDC_MINT, type LocalSolana } from '../../support/solana/local-solana';
import { sendRaw, walletTransfer } from '../../support/solana/transfer';
import { signMessageBlob } from '../../support/solana/wallet';
import { intentFor, parties, rejection, useLocalCluster, waitUntil } from './helpers';

let sol: LocalSolana;
let network: Network;
let rpc: RpcPool;
useLocalCluster({ blockhashValidBlocks: 40 }, (c) => ({ sol, network, rpc } = c));

describe('the source of the transfer is checked before broadcast', () => {
  test("a delegate's self-transfer on the requestor's account -> transaction.mismatch on source; nothing sent", async () => {
    const requestor = await generateKeyPairSigner();
    const delegate = await generateKeyPairSigner();
    sol.airdrop(delegate.address, 1_000_000_000n);
    const account = await sol.setTokenBalance(DEVNET_USDC_MINT, requestor.address, 5_000_000n, { address: delegate.address, amount: 5_000_000n });
    const intent = intentFor(requestor.address, delegate.address, 2_000_000n);
    const t = await walletTransfer(sol, { signer: delegate, source: account, destination: account, mint: DEVNET_USDC_MINT, amount: 2_000_000n });
    sol.resetCounters();
    const e = await rejection(solanaAdapter.verifySubmission(network, rpc, intent, t.wire, null));
    expect(e.code).toBe('transaction.mismatch');
    expect(e.details.differences).toEqual([expect.objectContaining({ field: 'source', actual: account })]);
    expect(sol.counters.calls.sendTransaction).toBeUndefined();
  });

  test("a delegate spending someone else's account (owner never screened) -> transaction.mismatch on source", async () => {
    const stranger = await generateKeyPairSigner();
    const delegate = await generateKeyPairSigner();
    const requestor = await generateKeyPairSigner();
    sol.airdrop(delegate.address, 1_000_000_000n);
    const theirs = await sol.setTokenBalance(DEVNET_USDC_MINT, stranger.address, 5_000_000n, { address: delegate.address, amount: 5_000_000n });
    await sol.setTokenBalance(DEVNET_USDC_MINT, requestor.address, 0n);
    const intent = intentFor(requestor.address, delegate.address, 2_000_000n);
    const t = await walletTransfer(sol, { signer: delegate, source: theirs, destination: await sol.ata(DEVNET_USDC_MINT, requestor.address), mint: DEVNET_USDC_MINT, amount: 2_000_000n });
    const e = await rejection(solanaAdapter.verifySubmission(network, rpc, intent, t.wire, null));
    expect(e.code).toBe('transaction.mismatch');
    expect(e.details.differences).toEqual([expect.objectContaining({ field: 'source', actual: `${theirs} (owned by ${stranger.address})` })]);
  });

  test("the fulfiller's own token account passes (built message and a wallet's own transfer alike)", async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    await sol.setTokenBalance(DEVNET_USDC_MINT, requestor.address, 0n);
    const intent = intentFor(requestor.address, fulfiller.address, 2_000_000n);
    const built = await solanaAdapter.build(network, rpc, intent, fulfiller.address);
    const v = await solanaAdapter.verifySubmission(network, rpc, intent, await signMessageBlob(built.transaction.blob, [fulfiller]), built.buildData);
    expect(v.signer).toBe(fulfiller.address);
    const own = await walletTransfer(sol, {
      signer: fulfiller, source: await sol.ata(DEVNET_USDC_MINT, fulfiller.address), destination: await sol.ata(DEVNET_USDC_MINT, requestor.address),
      mint: DEVNET_USDC_MINT, amount: 2_000_000n,
    });
    expect((await solanaAdapter.verifySubmission(network, rpc, intent, own.wire, null)).txSignature).toBe(own.signature);
  });
});

describe('build is idempotent while its blockhash is valid', () => {
  test('the same fulfiller gets the same bytes; another fulfiller or an expired blockhash gets a new build', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const first = await solanaAdapter.build(network, rpc, intent, fulfiller.address);
    await sol.chain.waitForHeight(sol.chain.height + 2); // a newer blockhash exists now
    const again = await solanaAdapter.reuseBuild!(network, rpc, intent, fulfiller.address, first.buildData);
    expect(again?.transaction).toEqual(first.transaction);
    expect(again?.buildData).toEqual(first.buildData);

    const other = await generateKeyPairSigner();
    expect(await solanaAdapter.reuseBuild!(network, rpc, { ...intent, fulfiller: other.address }, other.address, first.buildData)).toBeNull();
    expect(await solanaAdapter.reuseBuild!(network, rpc, { ...intent, amountBaseUnits: 2n }, fulfiller.address, first.buildData)).toBeNull();

    await waitUntil('blockhash expired', () => !sol.chain.isBlockhashValid(first.buildData.blockhash as string, sol.chain.heightAt('confirmed')));
    expect(await solanaAdapter.reuseBuild!(network, rpc, intent, fulfiller.address, first.buildData)).toBeNull();
  });
});

describe('same bytes, same answer', () => {
  test('bytes that landed are accepted again after their blockhash expired; bytes that never landed are rejected', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    // These bytes must land: no block from their build to their send (a loaded machine could
    // otherwise spend the hash's 40 blocks, 800 ms of 20 ms slots, on the way and they would never land).
    sol.chain.pause();
    const built = await solanaAdapter.build(network, rpc, intent, fulfiller.address);
    const v = await solanaAdapter.verifySubmission(network, rpc, intent, await signMessageBlob(built.transaction.blob, [fulfiller]), built.buildData);
    sendRaw(sol, v.signedTransaction); // the payer's wallet sent them
    sol.chain.resume();
    await waitUntil('landed', () => sol.chain.landedTx(v.txSignature) !== undefined);

    const other = intentFor(requestor.address, fulfiller.address, 1_500_000n);
    const builtOther = await solanaAdapter.build(network, rpc, other, fulfiller.address);
    const never = await solanaAdapter.verifySubmission(network, rpc, other, await signMessageBlob(builtOther.transaction.blob, [fulfiller]), builtOther.buildData);

    await waitUntil('both blockhashes expired', () => !sol.chain.isBlockhashValid(builtOther.buildData.blockhash as string));
    await solanaAdapter.broadcast(network, rpc, v); // resolves: the chain has these bytes
    const e = await rejection(solanaAdapter.broadcast(network, rpc, never));
    expect(e.code).toBe('transaction.rejected');
    expect(e.details.err).toBe('BlockhashNotFound');
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor.address)).toBe(1_000_000n); // paid once
  });
});
