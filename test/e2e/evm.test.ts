// End to end on anvil through the real HTTP server: Base Sepolia with an ERC-20 compiled by
// solc, and Tempo (anvil --network tempo) paying its fee in AlphaUSD. Wallets are viem accounts
// signing the blob that build returned; webhooks land on a real loopback receiver.
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intentIn, waitFor } from '../support/api';
import { startReceiver, type Receiver } from '../support/receiver';
import { DEV_KEYS, startAnvil, type Anvil } from '../support/evm/anvil';
import { ALPHA_USD, signBlob } from '../support/evm/chain';
import { deployToken, ownerClient, tokenAbi } from '../support/evm/token';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

const BASE = 'eip155:84532';
const TEMPO = 'eip155:42431';

let base: Anvil;
let tempo: Anvil;
let usdc: Hex;
let s: TestServer;
let rx: Receiver;
let api: ApiClient;
const payer = privateKeyToAccount(DEV_KEYS[1]);
// A fresh Tempo wallet holding AlphaUSD only: dev accounts carry a fee-token preference.
const tempoPayer = privateKeyToAccount(generatePrivateKey());

const stateOf = (id: string, want: string) => intentIn(api, id, want);
const balanceOf = (anvil: Anvil, token: Hex, who: string) =>
  ownerClient(anvil).readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who as Hex] });

beforeAll(async () => {
  [base, tempo] = await Promise.all([startAnvil('base', ['--block-time', '0.2']), startAnvil('tempo', ['--block-time', '0.2'])]);
  usdc = await deployToken(base, { [payer.address]: 1_000_000_000n });
  const funder = ownerClient(tempo);
  await funder.waitForTransactionReceipt({
    hash: await funder.writeContract({ address: ALPHA_USD, abi: erc20Abi, functionName: 'transfer', args: [tempoPayer.address, 50_000_000n] }),
  });
  // anvil's Tempo mode checks a native balance at pool admission (real Tempo has none to check).
  await tempo.rpc('anvil_setBalance', [tempoPayer.address, '0xffffffffffffffffffffffffffff']);
  rx = await startReceiver();
  s = await startTestServer({
    networks: {
      [BASE]: { rpc: [base.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300, tokens: { USDC: { address: usdc, decimals: 6 } } },
      [TEMPO]: { rpc: [tempo.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 },
    },
    webhooks: { allowPrivateUrls: true },
  });
  const { key, accountId } = await s.account({ plan: 'pro' });
  await s.setEndpoint(accountId, 'test', rx.url('/evm'));
  api = s.api(key);
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await rx?.close();
  await Promise.all([base?.stop(), tempo?.stop()]);
});

function expectErr(r: { status: number; body: { error?: { code: string; param: string | null } } }, status: number, param: string) {
  expect({ status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ status, code: 'request.invalid_param', param });
}

async function create(chain: string, token: string, amount: string, requestor: string) {
  const r = await api.post('/v1/intents', { chain, token, amount, requestor });
  expect(r.status).toBe(201);
  return r.body.intent as { id: string };
}

describe('Base Sepolia end to end', () => {
  it('pays an intent to finalized, credits the requestor, webhooks in order', async () => {
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const intent = await create(BASE, 'USDC', '12.34', requestor);
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    expect(built.status).toBe(200);
    expect(built.body.transaction.format).toBe('evm_eip1559');
    expect(built.body.transaction.estimatedFeeEth).toMatch(/^\d+(\.\d+)?$/);
    const signed = await signBlob(payer, built.body.transaction.blob);
    const sub = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
    expect(sub.status).toBe(200);
    expect(sub.body.txSignature).toMatch(/^0x[0-9a-f]{64}$/);
    const fin = await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized');
    expect(fin.txSignature).toBe(sub.body.txSignature);
    expect(await balanceOf(base, usdc, requestor)).toBe(12_340_000n);
    const hooks = await rx.waitFor(4, { prefix: '/evm', timeoutMs: 10_000 });
    const types = hooks.map((h) => JSON.parse(h.body)).filter((e) => e.data.intent.id === intent.id).map((e) => e.type);
    expect(types).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  });

  it('refuses a transfer to someone else, a wrong signer and garbage', async () => {
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const intent = await create(BASE, 'USDC', '1', requestor);
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    const elsewhere = await signBlob(payer, built.body.transaction.blob, {
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [payer.address, 1_000_000n] }),
    });
    const r1 = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: elsewhere });
    expect(r1.status).toBe(422);
    expect(r1.body.error.code).toBe('transaction.mismatch');
    const stranger = privateKeyToAccount(generatePrivateKey());
    const r2 = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: await signBlob(stranger, built.body.transaction.blob) });
    expect(r2.status).toBe(422);
    expect(r2.body.error.code).toBe('transaction.mismatch');
    const r3 = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: Buffer.from('not a transaction').toString('base64') });
    expect(r3.status).toBe(400);
    expect(r3.body.error.param).toBe('signedTransaction');
    expect((await api.get(`/v1/intents/${intent.id}`)).body.intent.state).toBe('created');
  });

  it('a wallet cannot pay itself: the requestor as fulfiller or as the signer is refused, and a self-transfer pays nothing', async () => {
    // A transfer from the requestor to itself moves no money (contract 14: paid means money
    // moved), yet it carries Transfer(from = signer, to = requestor, amount): it was confirmed.
    const self = payer.address;
    expectErr(await api.post('/v1/intents', { chain: BASE, token: 'USDC', amount: '1', requestor: self, fulfiller: self.toLowerCase() }), 400, 'fulfiller');
    const intent = await create(BASE, 'USDC', '1.25', self);
    expectErr(await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: self }), 400, 'fulfiller');
    // The bytes of a self-transfer (built for another intent, re-pointed at the requestor itself).
    const other = await create(BASE, 'USDC', '1.25', privateKeyToAccount(generatePrivateKey()).address);
    const built = await api.post(`/v1/intents/${other.id}/build`, { fulfiller: payer.address });
    const selfPay = await signBlob(payer, built.body.transaction.blob, {
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [self, 1_250_000n] }),
    });
    const bytes = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: selfPay });
    expect(bytes.status, JSON.stringify(bytes.body)).toBe(422);
    expect(bytes.body.error.code).toBe('transaction.mismatch');
    expect(bytes.body.error.details).toMatchObject({ field: 'signer', actual: self });
    expect((await api.get(`/v1/intents/${intent.id}`)).body.intent.state).toBe('created');
  });

  it('an on-chain revert gives failed (revert)', async () => {
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const intent = await create(BASE, 'USDC', '2', requestor);
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    const signed = await signBlob(payer, built.body.transaction.blob);
    // Block the requestor after the gas estimate: the signed transfer now reverts when mined.
    const owner = ownerClient(base);
    await owner.waitForTransactionReceipt({ hash: await owner.writeContract({ address: usdc, abi: tokenAbi(), functionName: 'setBlocked', args: [requestor, true] }) });
    const sub = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
    expect(sub.status).toBe(200);
    const failed = await waitFor(stateOf(intent.id, 'failed'), 20_000, 'failed');
    expect(failed.failureReason).toBe('revert');
  });

  it('a nonce taken by another transaction gives dropped, then a re-signed payment confirms', async () => {
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const intent = await create(BASE, 'USDC', '3', requestor);
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    const signed = await signBlob(payer, built.body.transaction.blob);
    // Hold mining so the payment stays in the mempool while another tx takes its nonce.
    await base.rpc('evm_setAutomine', [false]);
    await base.rpc('evm_setIntervalMining', [0]);
    try {
      expect((await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed })).status).toBe(200);
      const other = await signBlob(payer, built.body.transaction.blob, {
        to: payer.address, data: '0x', maxFeePerGas: 50_000_000_000n, maxPriorityFeePerGas: 10_000_000_000n,
      });
      await base.rpc('anvil_dropAllTransactions', []);
      await base.rpc('eth_sendRawTransaction', [`0x${Buffer.from(other, 'base64').toString('hex')}`]);
    } finally {
      await base.rpc('evm_setIntervalMining', [1]);
    }
    const dropped = await waitFor(stateOf(intent.id, 'dropped'), 20_000, 'dropped');
    expect(dropped.retryRequired).toBe(true);
    const rebuilt = await api.post(`/v1/intents/${intent.id}/build`, {});
    const resub = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: await signBlob(payer, rebuilt.body.transaction.blob) });
    expect(resub.status).toBe(200);
    await waitFor(stateOf(intent.id, 'confirmed'), 20_000, 'confirmed');
    expect(await balanceOf(base, usdc, requestor)).toBe(3_000_000n);
  });
});

describe('Tempo end to end', () => {
  it('pays in AlphaUSD with the fee charged in AlphaUSD', async () => {
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const before = await balanceOf(tempo, ALPHA_USD, tempoPayer.address);
    const intent = await create(TEMPO, 'AlphaUSD', '5.5', requestor);
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: tempoPayer.address });
    expect(built.status).toBe(200);
    expect(built.body.transaction.estimatedFeeUsdc).toMatch(/^\d+(\.\d+)?$/);
    expect(built.body.transaction.estimatedFeeEth).toBeNull();
    const sub = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: await signBlob(tempoPayer, built.body.transaction.blob) });
    expect(sub.status).toBe(200);
    await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized');
    expect(await balanceOf(tempo, ALPHA_USD, requestor)).toBe(5_500_000n);
    const after = await balanceOf(tempo, ALPHA_USD, tempoPayer.address);
    const receipt = await ownerClient(tempo).getTransactionReceipt({ hash: sub.body.txSignature });
    // TIP-20 fee: gas * price in 18-decimal units, charged in 6-decimal token units (rounded up).
    const fee = (receipt.gasUsed * receipt.effectiveGasPrice + 10n ** 12n - 1n) / 10n ** 12n;
    expect(fee).toBeGreaterThan(0n);
    expect(before - after).toBe(5_500_000n + fee);
    expect(Number(built.body.transaction.estimatedFeeUsdc) * 1e6).toBeGreaterThanOrEqual(Number(fee));
  });
});
