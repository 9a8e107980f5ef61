// Contract 14 on Base (anvil + the real server): `dropped` and `failed` tell a payer to pay again,
// so they wait for the `finalized` tag. A replacement or a revert one block deep that a reorg
// undoes must end paid once, never dropped or failed, with nothing left to pay (build 409).
import { encodeFunctionData, erc20Abi, maxUint256, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventTypes, expectError, waitFor } from '../../support/api';
import { DEV_KEYS, startAnvil, type Anvil } from '../../support/evm/anvil';
import { b64ToHex, signBlob } from '../../support/evm/chain';
import { startProxy, type RpcProxy } from '../../support/evm/proxy';
import { deployToken, ownerClient, tokenAbi } from '../../support/evm/token';
import { startTestServer, type ApiClient, type TestServer } from '../../support/server';

const BASE = 'eip155:84532';
let anvil: Anvil;
let proxy: RpcProxy;
let usdc: Hex;
let s: TestServer;
let api: ApiClient;

const balanceOf = (who: string) =>
  ownerClient(anvil).readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who as Hex] });
const stateOf = async (id: string) => (await api.get(`/v1/intents/${id}`)).body.intent as { state: string; retryRequired: boolean };
const head = async () => Number(await anvil.rpc<string>('eth_blockNumber'));

/** A fresh payer with gas and exactly `tokens`, so each test owns its nonces and balance. */
async function newPayer(tokens: bigint): Promise<PrivateKeyAccount> {
  const payer = privateKeyToAccount(generatePrivateKey());
  await anvil.rpc('anvil_setBalance', [payer.address, '0x56bc75e2d63100000']); // 100 ETH
  const owner = ownerClient(anvil);
  await owner.waitForTransactionReceipt({
    hash: await owner.writeContract({ address: usdc, abi: tokenAbi(), functionName: 'mint', args: [payer.address, tokens] }),
  });
  return payer;
}

/** Several watcher ticks against the chain as it is now (each tick is at least one upstream
 * request), or an early verdict: then the intent is no longer pending. */
async function letWatcherLook(id: string, ticks = 4) {
  const seen = proxy.forwarded;
  await waitFor(async () => proxy.forwarded >= seen + ticks || (await stateOf(id)).state !== 'pending', 10_000, `${ticks} watcher requests`);
}

/** create -> build -> sign -> submit with mining held; returns the signed bytes in the mempool. */
async function submitHeld(payer: PrivateKeyAccount, amount: string, requestor: string) {
  const created = await api.post('/v1/intents', { chain: BASE, token: 'USDC', amount, requestor });
  expect(created.status).toBe(201);
  const id = created.body.intent.id as string;
  const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: payer.address });
  expect(built.status).toBe(200);
  const signed = await signBlob(payer, built.body.transaction.blob);
  const sub = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: signed });
  expect(sub.status).toBe(200);
  return { id, blob: built.body.transaction.blob as string, raw: b64ToHex(signed), txSignature: sub.body.txSignature as string };
}

async function endsPaidOnce(id: string, requestor: string, amount: bigint, txSignature: string) {
  await waitFor(async () => (await stateOf(id)).state === 'confirmed', 10_000, 'confirmed');
  await anvil.rpc('anvil_mine', ['0x2']); // past the finalized tag
  await waitFor(async () => (await stateOf(id)).state === 'finalized', 10_000, 'finalized');
  const intent = (await api.get(`/v1/intents/${id}`)).body.intent;
  expect(intent).toMatchObject({ state: 'finalized', txSignature, retryRequired: false });
  expect(await balanceOf(requestor)).toBe(amount);
  expect(await eventTypes(api, id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  // Nothing is payable again: build refuses.
  expectError(await api.post(`/v1/intents/${id}/build`, {}), 409, 'intent.already_fulfilled');
}

beforeAll(async () => {
  anvil = await startAnvil('base');
  usdc = await deployToken(anvil);
  proxy = await startProxy(anvil.url);
  s = await startTestServer({
    networks: { [BASE]: { rpc: [proxy.url], pollIntervalMs: 50, rebroadcastIntervalMs: 200, tokens: { USDC: { address: usdc, decimals: 6 } } } },
  });
  api = s.api((await s.account({ plan: 'pro' })).key);
}, 60_000);
afterAll(async () => {
  await s?.stop();
  await proxy?.stop();
  await anvil?.stop();
});
beforeEach(async () => {
  await anvil.rpc('evm_setAutomine', [true]);
});

describe('EVM verdicts that ask the payer to pay again wait for the finalized tag', () => {
  it('a wallet replacement one block deep is not dropped; a reorg that lands our transfer ends paid once', async () => {
    const payer = await newPayer(5_000_000n);
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    await anvil.rpc('evm_setAutomine', [false]);
    const { id, blob, raw, txSignature } = await submitHeld(payer, '5', requestor);
    // The payer's wallet replaces our transfer: a 0-value self-send at the same nonce, higher fees.
    const other = await signBlob(payer, blob, { to: payer.address, data: '0x', maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 10_000_000_000n });
    await anvil.rpc('anvil_dropTransaction', [txSignature]);
    const takerHash = await anvil.rpc<string>('eth_sendRawTransaction', [b64ToHex(other)]);
    await anvil.rpc('evm_mine');
    const takerBlock = await head();
    expect((await anvil.rpc<{ blockNumber: string }>('eth_getTransactionReceipt', [takerHash])).blockNumber).toBe(`0x${takerBlock.toString(16)}`);
    await anvil.rpc('evm_mine'); // one block later: the replacement is still above the finalized tag
    await letWatcherLook(id);
    expect(await stateOf(id)).toMatchObject({ state: 'pending', retryRequired: false });

    // A reorg from the replacement's block on: our transfer is on chain instead.
    await anvil.rpc('anvil_reorg', [2, [[raw, 0]]]);
    expect(await anvil.rpc('eth_getTransactionReceipt', [takerHash])).toBeNull();
    await endsPaidOnce(id, requestor, 5_000_000n, txSignature);
  });

  it('a revert one block deep is not failed; a reorg that re-includes the same bytes ends paid once', async () => {
    const payer = await newPayer(3_000_000n);
    const spender = privateKeyToAccount(DEV_KEYS[8]);
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    // The payer once approved a spender (a subscription, say) for everything it holds.
    await payer.signTransaction({
      type: 'eip1559', chainId: anvil.chainId, nonce: 0, to: usdc, gas: 100_000n, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender.address, maxUint256] }),
    }).then((tx) => anvil.rpc('eth_sendRawTransaction', [tx]));
    await anvil.rpc('evm_setAutomine', [false]);
    const { id, raw, txSignature } = await submitHeld(payer, '3', requestor);
    // In the same block, ahead of ours (higher tip), the spender drains the payer: ours reverts.
    const drain = await spender.signTransaction({
      type: 'eip1559', chainId: anvil.chainId, nonce: Number(await anvil.rpc<string>('eth_getTransactionCount', [spender.address, 'pending'])),
      to: usdc, gas: 100_000n, maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 50_000_000_000n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [payer.address, spender.address, 3_000_000n] }),
    });
    await anvil.rpc('eth_sendRawTransaction', [drain]);
    await anvil.rpc('evm_mine');
    expect((await anvil.rpc<{ status: string }>('eth_getTransactionReceipt', [txSignature])).status).toBe('0x0');
    await letWatcherLook(id);
    expect(await stateOf(id)).toMatchObject({ state: 'pending' });

    // A one-block reorg re-includes the same bytes without the drain: now they pay.
    await anvil.rpc('anvil_reorg', [1, [[raw, 0]]]);
    expect((await anvil.rpc<{ status: string }>('eth_getTransactionReceipt', [txSignature])).status).toBe('0x1');
    await endsPaidOnce(id, requestor, 3_000_000n, txSignature);
  });
});
