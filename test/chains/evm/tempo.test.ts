// Tempo Moderato on anvil --network tempo: a TIP-20 (AlphaUSD) payment whose fee is paid in the
// same token, with no native gas token anywhere: build -> sign -> verify -> broadcast -> watch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi, parseTransaction, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { evmAdapter } from '../../../src/chains/evm/adapter';
import type { Network } from '../../../src/chains/types';
import { formatAmount, parseAmount } from '../../../src/domain/money';
import type { RpcPool } from '../../../src/rpc/types';
import { DEV_KEYS, startAnvil, type Anvil } from '../../support/evm/anvil';
import { ALPHA_USD, b64ToHex, intentFor, poolFor, signBlob, tempoModerato } from '../../support/evm/chain';
import { observations } from '../../support/evm/observe';
import { ownerClient } from '../../support/evm/token';

let anvil: Anvil;
let network: Network;
let rpc: RpcPool;
// A fresh wallet with AlphaUSD only (no fee-token preference, no native balance): the fee must
// come out of the token it transfers.
const payer = privateKeyToAccount(generatePrivateKey());
const requestor = privateKeyToAccount(generatePrivateKey()).address;
const unfunded = privateKeyToAccount(generatePrivateKey());

const alpha = (who: string) =>
  ownerClient(anvil).readContract({ address: ALPHA_USD, abi: erc20Abi, functionName: 'balanceOf', args: [who as Hex] });

beforeAll(async () => {
  anvil = await startAnvil('tempo');
  network = tempoModerato([anvil.url]);
  rpc = poolFor(network);
  const funder = ownerClient(anvil); // dev account 0, funded with AlphaUSD by anvil's Tempo genesis
  expect(await alpha(funder.account.address)).toBeGreaterThan(10n ** 12n);
  for (const who of [payer.address, unfunded.address]) {
    const hash = await funder.writeContract({ address: ALPHA_USD, abi: erc20Abi, functionName: 'transfer', args: [who, 50_000_000n] });
    expect((await funder.waitForTransactionReceipt({ hash })).status).toBe('success');
  }
  // Real Tempo answers eth_getBalance with a placeholder and never checks it; anvil's Tempo mode
  // still checks a native balance at pool admission (then charges the fee in the token), so the
  // payer gets a placeholder balance here. `unfunded` keeps 0 to show build never asks.
  await anvil.rpc('anvil_setBalance', [payer.address, '0xffffffffffffffffffffffffffff']);
});
afterAll(async () => {
  await anvil?.stop();
});

describe('Tempo (anvil --network tempo)', () => {
  it('builds for a payer with AlphaUSD and no native balance at all (no native-balance check)', async () => {
    expect(await alpha(privateKeyToAccount(DEV_KEYS[1]).address)).toBeGreaterThan(0n);
    expect(BigInt(await anvil.rpc<string>('eth_getBalance', [unfunded.address, 'latest']))).toBe(0n);
    const intent = intentFor(network, 'AlphaUSD', { requestor, fulfiller: unfunded.address, amount: 1_000_000n });
    const built = await evmAdapter.build(network, rpc, intent, unfunded.address);
    expect(built.transaction.estimatedFeeUsdc).toMatch(/^0\.\d+$/);
    expect(built.buildData).toMatchObject({ from: unfunded.address, nonce: 0, chainId: 42431 });
  });

  it('pays an intent in AlphaUSD with the fee charged in AlphaUSD: confirmed, finalized, balances exact', async () => {
    const amount = parseAmount('12.5', 6);
    if (!amount.ok) throw new Error('amount');
    const intent = intentFor(network, 'AlphaUSD', { requestor, fulfiller: payer.address, amount: amount.baseUnits });
    const built = await evmAdapter.build(network, rpc, intent, payer.address);
    expect(built.transaction.format).toBe('evm_eip1559');
    expect(built.transaction.estimatedFeeEth).toBeNull();
    expect(built.transaction.estimatedFeeLamports).toBeNull();
    const tx = parseTransaction(b64ToHex(built.transaction.blob));
    expect(tx).toMatchObject({ type: 'eip1559', chainId: 42431, nonce: 0 });
    // Fee in the token: ceil(gas * price / 10^12) microdollars, as a decimal string.
    const price = BigInt(built.buildData.baseFeePerGas as string) + tx.maxPriorityFeePerGas!;
    const gasEstimate = BigInt(built.buildData.gasEstimate as string);
    const estUnits = (gasEstimate * price + 10n ** 12n - 1n) / 10n ** 12n;
    expect(estUnits).toBeGreaterThan(0n);
    expect(built.transaction.estimatedFeeUsdc).toBe(formatAmount(estUnits, 6));

    const signed = await signBlob(payer, built.transaction.blob);
    const v = await evmAdapter.verifySubmission(network, rpc, intent, signed, built.buildData);
    expect(v.signer).toBe(payer.address);

    const obs = observations();
    const watcher = evmAdapter.createWatcher(network, rpc, obs.report);
    try {
      const [payerBefore, requestorBefore] = [await alpha(payer.address), await alpha(requestor)];
      await evmAdapter.broadcast(network, rpc, v);
      watcher.watch({
        intentId: intent.id, chain: network.chain, txSignature: v.txSignature, signedTransaction: v.signedTransaction,
        watchData: v.watchData, stage: 'pending', intent,
      });
      await obs.waitFor({ intentId: intent.id, type: 'confirmed', txSignature: v.txSignature });
      await anvil.rpc('anvil_mine', ['0x2']);
      await obs.waitFor({ intentId: intent.id, type: 'finalized', txSignature: v.txSignature });
      expect(obs.of(intent.id)).toEqual(['confirmed', 'finalized']);

      const receipt = await anvil.rpc<{ gasUsed: string; effectiveGasPrice: string }>('eth_getTransactionReceipt', [v.txSignature]);
      const fee = (BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice) + 10n ** 12n - 1n) / 10n ** 12n;
      expect(fee).toBeGreaterThan(0n);
      expect(fee).toBeLessThanOrEqual(estUnits);
      expect((await alpha(requestor)) - requestorBefore).toBe(amount.baseUnits);
      expect(payerBefore - (await alpha(payer.address))).toBe(amount.baseUnits + fee);
      const pathUsd = await ownerClient(anvil).readContract({
        address: '0x20c0000000000000000000000000000000000000', abi: erc20Abi, functionName: 'balanceOf', args: [payer.address],
      });
      expect(pathUsd).toBe(0n);
    } finally {
      await watcher.stop();
    }
  });

  it('refuses a payment signed for the Base chain id on Tempo', async () => {
    const intent = intentFor(network, 'AlphaUSD', { requestor, fulfiller: payer.address, amount: 1n });
    const built = await evmAdapter.build(network, rpc, intent, payer.address);
    const e = await evmAdapter
      .verifySubmission(network, rpc, intent, await signBlob(payer, built.transaction.blob, { chainId: 84532 }), null)
      .catch((err) => err);
    expect(e).toMatchObject({ code: 'transaction.mismatch', details: { field: 'chainId', expected: '42431', actual: '84532' } });
  });
});
