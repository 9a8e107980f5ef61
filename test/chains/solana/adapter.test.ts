// The Solana adapter against a local LiteSVM cluster: build, sign with kit, verify, broadcast, watch.
import { generateKeyPairSigner } from '@solana/kit';
import { describe, expect, test } from 'vitest';
import { solanaAdapter } from '../../../src/chains/solana/adapter';
import type { Network, VerifiedSubmission, Watcher } from '../../../src/chains/types';
import { AppError } from '../../../src/domain/errors';
import type { RpcPool } from '../../../src/rpc/types';
import { DEVNET_USDC_MINT, type LocalSolana } from '../../support/solana/local-solana';
import { signAsSomeoneElse, signMessageBlob } from '../../support/solana/wallet';
import { collector, intentFor, parties, rejection, useLocalCluster, waitUntil } from './helpers';

const TOKEN_ACCOUNT_RENT = 2_039_280; // rent-exempt minimum of a 165-byte account

let sol: LocalSolana;
let network: Network;
let rpc: RpcPool;
const { watcher } = useLocalCluster({ blockhashValidBlocks: 15 }, (c) => ({ sol, network, rpc } = c));
// A built blockhash lives 15 blocks here (about 300 ms of 20 ms slots), which a loaded machine can
// spend between build and broadcast: tests that broadcast what they built stop the cluster's clock
// from the build to the broadcast, so no block is produced before the node checks the hash.

function follow(w: Watcher, intent: ReturnType<typeof intentFor>, v: VerifiedSubmission) {
  w.watch({ intentId: intent.id, chain: intent.chain, txSignature: v.txSignature, signedTransaction: v.signedTransaction, watchData: v.watchData, stage: 'pending', intent });
}

describe('addresses', () => {
  test('base58 32-byte keys only; stored as given', () => {
    expect(solanaAdapter.isValidAddress(DEVNET_USDC_MINT)).toBe(true);
    expect(solanaAdapter.isValidAddress('11111111111111111111111111111111')).toBe(true);
    expect(solanaAdapter.isValidAddress('0x036CbD53842c5426634e7929541eC2318f3dCF7e')).toBe(false);
    expect(solanaAdapter.isValidAddress(DEVNET_USDC_MINT.slice(0, 30))).toBe(false);
    expect(solanaAdapter.isValidAddress(`${DEVNET_USDC_MINT}0`)).toBe(false); // 0 is not base58
    expect(solanaAdapter.normalizeAddress(DEVNET_USDC_MINT)).toBe(DEVNET_USDC_MINT);
  });
});

describe('pay an intent end to end', () => {
  test('build -> sign -> verify -> broadcast -> confirmed -> finalized, requestor credited, fee as estimated', async () => {
    const { fulfiller, requestor } = await parties(sol, 50_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 12_340_000n);

    sol.chain.pause();
    const built = await solanaAdapter.build(network, rpc, intent, fulfiller.address);
    expect(built.transaction.format).toBe('solana_v0_message');
    expect(built.ataRentLamports).toBe(TOKEN_ACCOUNT_RENT);
    expect(built.transaction.ataRentLamports).toBe(TOKEN_ACCOUNT_RENT);
    expect(built.transaction.estimatedFeeUsdc).toBeNull();
    expect(built.transaction.estimatedFeeEth).toBeNull();
    expect(built.buildData.lastValidBlockHeight).toBeTypeOf('number');

    const signed = await signMessageBlob(built.transaction.blob, [fulfiller]);
    const v = await solanaAdapter.verifySubmission(network, rpc, intent, signed, built.buildData);
    expect(v.signer).toBe(fulfiller.address);
    expect(v.signedTransaction).toBe(signed);
    expect(v.txSignature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(v.watchData.lastValidBlockHeight).toBe(built.buildData.lastValidBlockHeight);

    const solBefore = sol.solBalance(fulfiller.address);
    const obs = collector();
    const w = watcher(obs.report);
    await solanaAdapter.broadcast(network, rpc, v);
    sol.chain.resume();
    follow(w, intent, v);

    await waitUntil('finalized', () => obs.types(intent.id).includes('finalized'));
    expect(obs.types(intent.id)).toEqual(['confirmed', 'finalized']);
    expect(obs.seen.every((o) => o.txSignature === v.txSignature)).toBe(true);
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor.address)).toBe(12_340_000n);
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, fulfiller.address)).toBe(50_000_000n - 12_340_000n);
    // The fulfiller paid exactly the estimated fee plus the new token account's rent.
    expect(solBefore - sol.solBalance(fulfiller.address)).toBe(BigInt(built.transaction.estimatedFeeLamports! + TOKEN_ACCOUNT_RENT));
  });

  test("requestor's token account present: rent 0, no account creation, still pays", async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    await sol.setTokenBalance(DEVNET_USDC_MINT, requestor.address, 7n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);

    sol.chain.pause();
    const built = await solanaAdapter.build(network, rpc, intent, fulfiller.address);
    expect(built.ataRentLamports).toBe(0);
    expect(built.transaction.ataRentLamports).toBe(0);
    const solBefore = sol.solBalance(fulfiller.address);

    const v = await solanaAdapter.verifySubmission(network, rpc, intent, await signMessageBlob(built.transaction.blob, [fulfiller]), built.buildData);
    const obs = collector();
    const w = watcher(obs.report);
    await solanaAdapter.broadcast(network, rpc, v);
    sol.chain.resume();
    follow(w, intent, v);
    await waitUntil('confirmed', () => obs.types(intent.id).includes('confirmed'));
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor.address)).toBe(1_000_007n);
    expect(solBefore - sol.solBalance(fulfiller.address)).toBe(BigInt(built.transaction.estimatedFeeLamports!));
  });

  test('a Token-2022 mint is refused with token.unsupported_program', async () => {
    const mint = (await generateKeyPairSigner()).address;
    sol.createMint({ address: mint, decimals: 6, tokenProgram: 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb' });
    const { fulfiller, requestor } = await parties(sol, 1n);
    const e = await rejection(solanaAdapter.build(network, rpc, intentFor(requestor.address, fulfiller.address, 1n, { tokenAddress: mint }), fulfiller.address));
    expect(e).toBeInstanceOf(AppError);
    expect(e.code).toBe('token.unsupported_program');
  });

  test('a mint that does not exist on the chain is refused', async () => {
    const mint = (await generateKeyPairSigner()).address;
    const { fulfiller, requestor } = await parties(sol, 1n);
    const e = await rejection(solanaAdapter.build(network, rpc, intentFor(requestor.address, fulfiller.address, 1n, { tokenAddress: mint }), fulfiller.address));
    expect(e.code).toBe('token.unavailable_on_chain');
  });
});

describe('verifySubmission refuses what does not pay this intent', () => {
  test('a transaction paying someone else -> transaction.mismatch naming the destination', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const thief = await generateKeyPairSigner();
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const elsewhere = await solanaAdapter.build(network, rpc, { ...intent, requestor: thief.address }, fulfiller.address);
    const signed = await signMessageBlob(elsewhere.transaction.blob, [fulfiller]);

    const e = await rejection(solanaAdapter.verifySubmission(network, rpc, intent, signed, null));
    expect(e.code).toBe('transaction.mismatch');
    const fields = e.details.differences.map((d: { field: string }) => d.field);
    expect(fields).toContain('destination');
    // Also when PayForge has build data for the intent (the message is simply not the built one).
    const own = await solanaAdapter.build(network, rpc, intent, fulfiller.address);
    expect((await rejection(solanaAdapter.verifySubmission(network, rpc, intent, signed, own.buildData))).code).toBe('transaction.mismatch');
  });

  test('a different amount -> mismatch on amount', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const less = await solanaAdapter.build(network, rpc, { ...intent, amountBaseUnits: 999_999n }, fulfiller.address);
    const e = await rejection(solanaAdapter.verifySubmission(network, rpc, intent, await signMessageBlob(less.transaction.blob, [fulfiller]), null));
    expect(e.code).toBe('transaction.mismatch');
    expect(e.details.differences).toEqual([expect.objectContaining({ field: 'amount', expected: '1000000', actual: '999999' })]);
  });

  test('signed by a key that is not the fulfiller -> mismatch on signatures', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const impostor = await generateKeyPairSigner();
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const built = await solanaAdapter.build(network, rpc, intent, fulfiller.address);
    const e = await rejection(solanaAdapter.verifySubmission(network, rpc, intent, await signAsSomeoneElse(built.transaction.blob, impostor), built.buildData));
    expect(e.code).toBe('transaction.mismatch');
    expect(e.details.differences[0].field).toBe('signatures');
    // Unsigned: same refusal.
    const unsigned = await signMessageBlob(built.transaction.blob, []);
    expect((await rejection(solanaAdapter.verifySubmission(network, rpc, intent, unsigned, built.buildData))).code).toBe('transaction.mismatch');
  });

  test('a valid transaction whose fee payer is another wallet -> mismatch on feePayer', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const other = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const built = await solanaAdapter.build(network, rpc, { ...intent, fulfiller: other.fulfiller.address }, other.fulfiller.address);
    const signed = await signMessageBlob(built.transaction.blob, [other.fulfiller]);
    const e = await rejection(solanaAdapter.verifySubmission(network, rpc, intent, signed, null));
    expect(e.code).toBe('transaction.mismatch');
    expect(e.details.differences).toEqual([{ field: 'feePayer', expected: fulfiller.address, actual: other.fulfiller.address }]);
  });

  test('garbage, bare messages and truncated bytes -> request.invalid_param on signedTransaction', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const built = await solanaAdapter.build(network, rpc, intent, fulfiller.address);
    const signed = await signMessageBlob(built.transaction.blob, [fulfiller]);
    const truncated = Buffer.from(Buffer.from(signed, 'base64').subarray(0, 100)).toString('base64');
    for (const bad of ['not base64!!', '', 'AAAA', Buffer.from('hello world, not a tx').toString('base64'), truncated, `${signed}AAAA`]) {
      const e = await rejection(solanaAdapter.verifySubmission(network, rpc, intent, bad, built.buildData));
      expect(e, bad).toBeInstanceOf(AppError);
      expect(e.code, bad).toBe('request.invalid_param');
      expect(e.param).toBe('signedTransaction');
    }
  });

  test('an equivalent message a wallet rebuilt is accepted; its validity is left to the blockhash itself', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    const first = await solanaAdapter.build(network, rpc, intent, fulfiller.address);
    await sol.chain.waitForHeight(sol.chain.height + 2);
    const rebuilt = await solanaAdapter.build(network, rpc, intent, fulfiller.address); // newer blockhash
    expect(rebuilt.transaction.blob).not.toBe(first.transaction.blob);
    const signed = await signMessageBlob(rebuilt.transaction.blob, [fulfiller]);
    const slotBefore = sol.chain.slot;
    // Verified against the FIRST build's data: not the built bytes, but it pays exactly.
    const v = await solanaAdapter.verifySubmission(network, rpc, intent, signed, first.buildData);
    expect(v.signer).toBe(fulfiller.address);
    // No height from one node (contract 14): the watcher asks isBlockhashValid at finalized once
    // that bank is past the slot the hash was known at, and searches history from a window before.
    expect(v.watchData.lastValidBlockHeight).toBeUndefined();
    expect(v.watchData.blockhash).toBe(rebuilt.buildData.blockhash);
    expect(v.watchData.hashSlot as number).toBeGreaterThanOrEqual(slotBefore);
    expect(v.watchData.historyFromSlot as number).toBeLessThanOrEqual(rebuilt.buildData.slot as number);
  });
});

describe('broadcast', () => {
  test('the node refusing it (fulfiller lacks tokens) -> transaction.rejected with the RPC message', async () => {
    const { fulfiller, requestor } = await parties(sol, 10n);
    const intent = intentFor(requestor.address, fulfiller.address, 1_000_000n);
    // Refused for the tokens it lacks, never for a hash that expired on the way.
    sol.chain.pause();
    const built = await solanaAdapter.build(network, rpc, intent, fulfiller.address);
    const v = await solanaAdapter.verifySubmission(network, rpc, intent, await signMessageBlob(built.transaction.blob, [fulfiller]), built.buildData);
    const e = await rejection(solanaAdapter.broadcast(network, rpc, v));
    expect(e.code).toBe('transaction.rejected');
    expect(e.details.rpc_message).toMatch(/custom program error: 0x1/);
    expect(e.details.err).toEqual({ InstructionError: [3, { Custom: 1 }] });
  });

  test('a duplicate broadcast is harmless, before and after landing; paid once', async () => {
    const { fulfiller, requestor } = await parties(sol, 5_000_000n);
    const intent = intentFor(requestor.address, fulfiller.address, 2_000_000n);
    sol.chain.pause();
    const built = await solanaAdapter.build(network, rpc, intent, fulfiller.address);
    const v = await solanaAdapter.verifySubmission(network, rpc, intent, await signMessageBlob(built.transaction.blob, [fulfiller]), built.buildData);
    await solanaAdapter.broadcast(network, rpc, v);
    await solanaAdapter.broadcast(network, rpc, v);
    sol.chain.tick();
    expect(sol.chain.landedTx(v.txSignature)?.err).toBeNull();
    await solanaAdapter.broadcast(network, rpc, v); // AlreadyProcessed at preflight
    sol.chain.resume();
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor.address)).toBe(2_000_000n);
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, fulfiller.address)).toBe(3_000_000n);
  });
});
