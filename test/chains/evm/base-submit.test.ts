// Base Sepolia on anvil: build -> sign with a viem account -> verify -> broadcast, and every
// way a submission is refused (mismatch, garbage, node rejection), with a real ERC-20.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, keccak256, parseTransaction, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { evmAdapter } from '../../../src/chains/evm/adapter';
import type { Network } from '../../../src/chains/types';
import { AppError } from '../../../src/domain/errors';
import { formatAmount } from '../../../src/domain/money';
import type { RpcPool } from '../../../src/rpc/types';
import { DEV_KEYS, receiptOf, startAnvil, type Anvil } from '../../support/evm/anvil';
import { b64ToHex, baseSepolia, hexToB64, intentFor, poolFor, signBlob } from '../../support/evm/chain';
import { deployToken, installFakeGasPriceOracle, ownerClient, tokenAbi } from '../../support/evm/token';

let anvil: Anvil;
let usdc: Hex;
let network: Network;
let rpc: RpcPool;
const payer = privateKeyToAccount(DEV_KEYS[1]);
const stranger = privateKeyToAccount(DEV_KEYS[2]);
const requestor = privateKeyToAccount(generatePrivateKey()).address;

async function expectAppError(p: Promise<unknown>, code: string): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  expect((e as AppError).code).toBe(code);
  return e as AppError;
}

const balanceOf = (who: string) =>
  ownerClient(anvil).readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who as Hex] });

beforeAll(async () => {
  anvil = await startAnvil('base');
  usdc = await deployToken(anvil, { [payer.address]: 1_000_000_000n, [stranger.address]: 1_000_000_000n });
  network = baseSepolia([anvil.url], usdc);
  rpc = poolFor(network);
});
afterAll(async () => {
  await anvil?.stop();
});

describe('addresses', () => {
  it('accepts 0x + 40 hex and stores the EIP-55 form', () => {
    expect(evmAdapter.isValidAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')).toBe(true);
    expect(evmAdapter.isValidAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c')).toBe(false);
    expect(evmAdapter.isValidAddress('70997970c51812dc3a010c7d01b50e0d17dc79c8aa')).toBe(false);
    expect(evmAdapter.isValidAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79cg')).toBe(false);
    expect(evmAdapter.normalizeAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')).toBe(
      '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    );
  });
});

describe('build', () => {
  it('returns the unsigned EIP-1559 transfer with chain id, pending nonce, gas margin and fees', async () => {
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: payer.address, amount: 12_340_000n });
    const pending = await anvil.rpc<string>('eth_getTransactionCount', [payer.address, 'pending']);
    const { transaction, buildData, ataRentLamports } = await evmAdapter.build(network, rpc, intent, payer.address.toLowerCase());

    expect(transaction.format).toBe('evm_eip1559');
    expect(ataRentLamports).toBeNull();
    expect(transaction.ataRentLamports).toBeNull();
    expect(transaction.estimatedFeeLamports).toBeNull();
    expect(transaction.estimatedFeeUsdc).toBeNull();
    const hex = b64ToHex(transaction.blob);
    expect(hex.startsWith('0x02')).toBe(true);
    const tx = parseTransaction(hex);
    expect(tx.type).toBe('eip1559');
    expect(tx.chainId).toBe(84532);
    expect(tx.nonce).toBe(Number(pending));
    expect(tx.to?.toLowerCase()).toBe(usdc.toLowerCase());
    expect(tx.r).toBeUndefined();
    expect(tx.data).toBe(encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [requestor, 12_340_000n] }));
    const estimate = BigInt(await anvil.rpc<string>('eth_estimateGas', [{ from: payer.address, to: usdc, data: tx.data }]));
    expect(tx.gas! > estimate).toBe(true);
    expect(tx.gas! <= (estimate * 3n) / 2n).toBe(true);
    expect(tx.maxPriorityFeePerGas! > 0n).toBe(true);
    expect(tx.maxFeePerGas! > tx.maxPriorityFeePerGas!).toBe(true);
    expect(buildData).toMatchObject({
      from: payer.address,
      nonce: Number(pending),
      gas: tx.gas!.toString(),
      maxFeePerGas: tx.maxFeePerGas!.toString(),
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas!.toString(),
      l1FeeWei: '0', // plain anvil has no GasPriceOracle predeploy
    });
    const price = BigInt(buildData.baseFeePerGas as string) + tx.maxPriorityFeePerGas!;
    expect(transaction.estimatedFeeEth).toBe(formatAmount(BigInt(buildData.gasEstimate as string) * price, 18));
  });

  it('adds the OP Stack L1 data fee from the GasPriceOracle predeploy to estimatedFeeEth', async () => {
    await installFakeGasPriceOracle(anvil);
    try {
      const intent = intentFor(network, 'USDC', { requestor, fulfiller: payer.address, amount: 5n });
      const { transaction, buildData } = await evmAdapter.build(network, rpc, intent, payer.address);
      // The fake charges 1 gwei per byte of the unsigned serialized transaction it is given.
      const l1 = BigInt(Buffer.from(transaction.blob, 'base64').length) * 1_000_000_000n;
      expect(buildData.l1FeeWei).toBe(l1.toString());
      const price = BigInt(buildData.baseFeePerGas as string) + BigInt(buildData.maxPriorityFeePerGas as string);
      expect(transaction.estimatedFeeEth).toBe(formatAmount(BigInt(buildData.gasEstimate as string) * price + l1, 18));
    } finally {
      await anvil.rpc('anvil_setCode', ['0x420000000000000000000000000000000000000F', '0x']);
    }
  });

  it('refuses a fulfiller without the tokens (estimate reverts) or without ETH for gas', async () => {
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: null, amount: 5n });
    const broke = privateKeyToAccount(generatePrivateKey()).address;
    const noTokens = await expectAppError(evmAdapter.build(network, rpc, intent, broke), 'transaction.rejected');
    expect(noTokens.details.stage).toBe('estimateGas');
    expect(String(noTokens.details.rpc_message)).toMatch(/revert/i);

    const owner = ownerClient(anvil);
    await owner.waitForTransactionReceipt({
      hash: await owner.writeContract({ address: usdc, abi: tokenAbi(), functionName: 'mint', args: [broke, 10n] }),
    });
    const noGas = await expectAppError(evmAdapter.build(network, rpc, intent, broke), 'transaction.rejected');
    expect(noGas.details).toMatchObject({ stage: 'balance', balance_wei: '0' });
  });

  it('is idempotent: while the built nonce is unused, the same fulfiller gets the same bytes', async () => {
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: payer.address, amount: 4_200_000n });
    const first = await evmAdapter.build(network, rpc, intent, payer.address);
    // The chain moves on (fees, blocks) between the two builds: the answer does not.
    await anvil.rpc('anvil_mine', ['0x3']);
    const again = await evmAdapter.reuseBuild!(network, rpc, intent, payer.address.toLowerCase(), first.buildData);
    expect(again).toEqual(first);
    // Another fulfiller, or bytes from another family, never reuse.
    expect(await evmAdapter.reuseBuild!(network, rpc, intent, stranger.address, first.buildData)).toBeNull();
    expect(await evmAdapter.reuseBuild!(network, rpc, intent, payer.address, { blockhash: 'x', lastValidBlockHeight: 1 })).toBeNull();
    expect(await evmAdapter.reuseBuild!(network, rpc, intent, payer.address, null)).toBeNull();

    // Once that nonce is used (here by the payment itself), a build is a new one at the next nonce.
    const v = await evmAdapter.verifySubmission(network, rpc, intent, await signBlob(payer, first.transaction.blob), first.buildData);
    await evmAdapter.broadcast(network, rpc, v);
    await receiptOf(anvil, v.txSignature);
    expect(await evmAdapter.reuseBuild!(network, rpc, intent, payer.address, first.buildData)).toBeNull();
    const next = await evmAdapter.build(network, rpc, intent, payer.address);
    expect(next.buildData.nonce).toBe(Number(first.buildData.nonce) + 1);
  });

  it('refuses a fulfiller that is not an EVM address', async () => {
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: null, amount: 5n });
    const e = await expectAppError(evmAdapter.build(network, rpc, intent, '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'), 'request.invalid_param');
    expect(e.param).toBe('fulfiller');
  });

  it('refuses a token address without contract code', async () => {
    const bogus = baseSepolia([anvil.url], '0x000000000000000000000000000000000000bEEF');
    const intent = intentFor(bogus, 'USDC', { requestor, fulfiller: payer.address, amount: 5n });
    await expectAppError(evmAdapter.build(bogus, rpc, intent, payer.address), 'token.unsupported_program');
  });
});

describe('verify and broadcast', () => {
  it('pays the requestor: verify recovers the signer, broadcast is idempotent, balances move', async () => {
    const amount = 7_500_000n;
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: payer.address, amount });
    const { transaction, buildData } = await evmAdapter.build(network, rpc, intent, payer.address);
    const signed = await signBlob(payer, transaction.blob);
    const v = await evmAdapter.verifySubmission(network, rpc, intent, signed, buildData);
    expect(v.txSignature).toBe(keccak256(b64ToHex(signed)));
    expect(v.signer).toBe(payer.address);
    expect(v.signedTransaction).toBe(signed);
    expect(v.watchData).toMatchObject({ from: payer.address, nonce: buildData.nonce });

    const [before, payerBefore] = [await balanceOf(requestor), await balanceOf(payer.address)];
    await evmAdapter.broadcast(network, rpc, v);
    expect((await receiptOf(anvil, v.txSignature)).status).toBe('0x1');
    expect((await balanceOf(requestor)) - before).toBe(amount);
    expect(payerBefore - (await balanceOf(payer.address))).toBe(amount);
    // Again after it was mined: the node says "nonce too low", but it is our own transaction.
    await evmAdapter.broadcast(network, rpc, v);
  });

  it('counts a transaction already in the mempool as sent', async () => {
    await anvil.rpc('evm_setAutomine', [false]);
    try {
      const intent = intentFor(network, 'USDC', { requestor, fulfiller: payer.address, amount: 3n });
      const { transaction } = await evmAdapter.build(network, rpc, intent, payer.address);
      const v = await evmAdapter.verifySubmission(network, rpc, intent, await signBlob(payer, transaction.blob), null);
      await evmAdapter.broadcast(network, rpc, v);
      await evmAdapter.broadcast(network, rpc, v); // "already imported"
      await anvil.rpc('evm_mine');
      expect((await anvil.rpc<{ status: string }>('eth_getTransactionReceipt', [v.txSignature])).status).toBe('0x1');
    } finally {
      await anvil.rpc('evm_setAutomine', [true]);
    }
  });

  it('refuses a transaction paying someone else, another amount, another token or chain', async () => {
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: payer.address, amount: 1_000_000n });
    const { transaction } = await evmAdapter.build(network, rpc, intent, payer.address);
    const other = privateKeyToAccount(generatePrivateKey()).address;
    const cases: Array<[string, Parameters<typeof signBlob>[2]]> = [
      ['recipient', { data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [other, 1_000_000n] }) }],
      ['amount', { data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [requestor, 999_999n] }) }],
      ['token', { to: '0x000000000000000000000000000000000000bEEF' }],
      ['chainId', { chainId: 8453 }],
      ['function', { data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [requestor, 1_000_000n] }) }],
      ['value', { value: 1n }],
    ];
    for (const [field, change] of cases) {
      const e = await expectAppError(
        evmAdapter.verifySubmission(network, rpc, intent, await signBlob(payer, transaction.blob, change), null),
        'transaction.mismatch',
      );
      expect(e.details.field, field).toBe(field);
      expect(e.details.intent_id).toBe(intent.id);
    }
    const e = await expectAppError(
      evmAdapter.verifySubmission(network, rpc, intent, await signBlob(payer, transaction.blob, { data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [other, 1n] }) }), null),
      'transaction.mismatch',
    );
    expect((e.details.mismatches as Array<{ field: string }>).map((m) => m.field)).toEqual(['recipient', 'amount']);
    expect(e.details).toMatchObject({ expected: requestor, actual: other });
    // The same list under the name the Solana family gives it: one shape for an integrator to read.
    expect(e.details.differences).toEqual(e.details.mismatches);
  });

  it('refuses a transaction signed by someone other than the fulfiller (any address case)', async () => {
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: payer.address.toLowerCase(), amount: 1_000_000n });
    const { transaction } = await evmAdapter.build(network, rpc, intent, payer.address);
    const e = await expectAppError(
      evmAdapter.verifySubmission(network, rpc, intent, await signBlob(stranger, transaction.blob), null),
      'transaction.mismatch',
    );
    expect(e.details).toMatchObject({ field: 'signer', actual: stranger.address });
    // The fulfiller itself passes even though the intent stored it lower-case.
    await evmAdapter.verifySubmission(network, rpc, intent, await signBlob(payer, transaction.blob), null);
  });

  it('answers garbage with request.invalid_param on signedTransaction', async () => {
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: payer.address, amount: 1n });
    const { transaction } = await evmAdapter.build(network, rpc, intent, payer.address);
    const inputs = [
      'not base64 at all!',
      '',
      Buffer.from('hello world, not a transaction').toString('base64'),
      transaction.blob, // unsigned
      hexToB64('0x02c0'),
    ];
    for (const input of inputs) {
      const e = await expectAppError(evmAdapter.verifySubmission(network, rpc, intent, input, null), 'request.invalid_param');
      expect(e.param, input).toBe('signedTransaction');
    }
  });

  it('turns a node refusal into transaction.rejected with the node message', async () => {
    // Signed correctly for the intent, but the signer has no ETH: the node refuses it.
    const broke = privateKeyToAccount(generatePrivateKey());
    const intent = intentFor(network, 'USDC', { requestor, fulfiller: broke.address, amount: 1n });
    const { transaction } = await evmAdapter.build(network, rpc, intentFor(network, 'USDC', { requestor, fulfiller: null, amount: 1n }), payer.address);
    const signed = await signBlob(broke, transaction.blob, { nonce: 0 });
    const v = await evmAdapter.verifySubmission(network, rpc, intent, signed, null);
    const e = await expectAppError(evmAdapter.broadcast(network, rpc, v), 'transaction.rejected');
    expect(String(e.details.rpc_message)).toMatch(/insufficient funds/i);
    expect(e.details.txSignature).toBe(v.txSignature);
  });
});
