// Submit by transaction id on anvil (issue 9 item 2, contract 11): the payer's wallet sends its
// own transfer (viem picks nonce, gas and fees, as MetaMask does), then PayForge is told the hash.
// Base Sepolia (ERC-20 USDC) and Tempo (TIP-20 AlphaUSD), through the real HTTP server.
import { createWalletClient, defineChain, erc20Abi, http, publicActions, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, expectError, intentIn, waitFor } from '../support/api';
import { DEV_KEYS, startAnvil, type Anvil } from '../support/evm/anvil';
import { ALPHA_USD } from '../support/evm/chain';
import { deployToken, ownerClient } from '../support/evm/token';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

const BASE = 'eip155:84532';
const TEMPO = 'eip155:42431';

let base: Anvil;
let tempo: Anvil;
let usdc: Hex;
let s: TestServer;
let api: ApiClient;
const payer = privateKeyToAccount(DEV_KEYS[3]);
const tempoPayer = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  [base, tempo] = await Promise.all([startAnvil('base', ['--block-time', '0.2']), startAnvil('tempo', ['--block-time', '0.2'])]);
  usdc = await deployToken(base, { [payer.address]: 1_000_000_000n });
  const funder = ownerClient(tempo);
  await funder.waitForTransactionReceipt({
    hash: await funder.writeContract({ address: ALPHA_USD, abi: erc20Abi, functionName: 'transfer', args: [tempoPayer.address, 50_000_000n] }),
  });
  await tempo.rpc('anvil_setBalance', [tempoPayer.address, '0xffffffffffffffffffffffffffff']);
  s = await startTestServer({
    networks: {
      [BASE]: { rpc: [base.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300, tokens: { USDC: { address: usdc, decimals: 6 } } },
      [TEMPO]: { rpc: [tempo.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 },
    },
  });
  api = s.api((await s.account()).key);
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await Promise.all([base?.stop(), tempo?.stop()]);
});

/** The payer's own wallet: a plain viem wallet client that chooses nonce, gas and fees itself. */
function wallet(anvil: Anvil, account: PrivateKeyAccount) {
  return createWalletClient({
    account,
    chain: defineChain({ id: anvil.chainId, name: `anvil ${anvil.chainId}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.url] } } }),
    transport: http(anvil.url),
  }).extend(publicActions);
}

async function create(chain: string, token: string, amount: string, requestor: string, fulfiller?: string) {
  const r = await api.post('/v1/intents', { chain, token, amount, requestor, ...(fulfiller ? { fulfiller } : {}) });
  expect(r.status).toBe(201);
  return r.body.intent as { id: string };
}

const stateOf = (id: string, want: string) => intentIn(api, id, want);

const ALL = ['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized'];

describe('submit by transaction hash', () => {
  it('Base: wallet sends while mining is held -> pending; then confirmed and finalized, every event in order; idempotent', async () => {
    const w = wallet(base, payer);
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const intent = await create(BASE, 'USDC', '4.2', requestor);
    await base.rpc('evm_setIntervalMining', [0]);
    let hash: Hex;
    try {
      hash = await w.writeContract({ address: usdc, abi: erc20Abi, functionName: 'transfer', args: [requestor, 4_200_000n] });
      const sub = await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: hash });
      expect(sub.status, JSON.stringify(sub.body)).toBe(200);
      expect(sub.body.txSignature).toBe(hash.toLowerCase());
      expect(sub.body.intent).toMatchObject({ state: 'pending', txSignature: hash.toLowerCase(), fulfiller: payer.address });
      // Idempotent on the id: the same hash again changes nothing.
      const again = await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: hash });
      expect(again.status).toBe(200);
      expect(again.body.intent.updatedAt).toBe(sub.body.intent.updatedAt);
    } finally {
      await base.rpc('evm_setIntervalMining', [1]);
    }
    await waitFor(stateOf(intent.id, 'finalized'), 60_000, 'finalized');
    expect((await eventsOf(api, intent.id)).map((e) => e.type)).toEqual(ALL);
    expect(await w.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [requestor] })).toBe(4_200_000n);
    // A second payment for it is refused (build and submit).
    expectError(await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address }), 409, 'intent.already_fulfilled');
  }, 120_000);

  it('Base: an already finalized transfer moves the intent through every event in one request', async () => {
    const w = wallet(base, payer);
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const intent = await create(BASE, 'USDC', '0.75', requestor, payer.address);
    const hash = await w.writeContract({ address: usdc, abi: erc20Abi, functionName: 'transfer', args: [requestor, 750_000n] });
    const receipt = await w.waitForTransactionReceipt({ hash });
    await waitFor(async () => {
      const fin = await w.getBlock({ blockTag: 'finalized' });
      return fin.number >= receipt.blockNumber;
    }, 30_000, 'finalized tag past the receipt');
    const sub = await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: hash });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    // The detector scans the same chain (contract 11): on a loaded machine it may have found the
    // transfer while the test waited for the finalized tag, and driven the intent itself. Either
    // way every event comes once, in order.
    if (sub.body.intent.state !== 'finalized') {
      expect(['pending', 'confirmed']).toContain(sub.body.intent.state);
      await waitFor(stateOf(intent.id, 'finalized'), 60_000, 'finalized');
    }
    const events = await eventsOf(api, intent.id);
    expect(events.map((e) => e.type)).toEqual(ALL);
    // Each event shows the intent as it was at that step.
    expect(events.map((e) => e.data.intent.state)).toEqual(['created', 'pending', 'confirmed', 'finalized']);
  }, 120_000);

  it('Base: unknown hash 422 transaction.not_found, malformed 400, both or neither 400, wrong amount 422 mismatch; intent unchanged', async () => {
    const w = wallet(base, payer);
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const intent = await create(BASE, 'USDC', '3', requestor);
    expectError(await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: `0x${'ab'.repeat(32)}` }), 422, 'transaction.not_found', 'txSignature');
    expectError(await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: '0x1234' }), 400, 'request.invalid_param', 'txSignature');
    expectError(await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: `0x${'ab'.repeat(32)}`, signedTransaction: 'AAAA' }), 400, 'request.invalid_param', 'txSignature');
    expectError(await api.post(`/v1/intents/${intent.id}/submit`, {}), 400, 'request.invalid_param', 'txSignature');
    const short = await w.writeContract({ address: usdc, abi: erc20Abi, functionName: 'transfer', args: [requestor, 2_999_999n] });
    await w.waitForTransactionReceipt({ hash: short });
    const e = expectError(await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: short }), 422, 'transaction.mismatch', 'txSignature');
    expect(e.details.field).toBe('amount');
    expect((await api.get(`/v1/intents/${intent.id}`)).body.intent).toMatchObject({ state: 'created', txSignature: null, fulfiller: null });
  }, 120_000);

  it('Tempo: the wallet pays in AlphaUSD itself, then submit by hash -> finalized with every event', async () => {
    const w = wallet(tempo, tempoPayer);
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const intent = await create(TEMPO, 'AlphaUSD', '1.25', requestor);
    const hash = await w.writeContract({ address: ALPHA_USD, abi: erc20Abi, functionName: 'transfer', args: [requestor, 1_250_000n] });
    const sub = await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: hash });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    expect(['pending', 'confirmed', 'finalized']).toContain(sub.body.intent.state);
    await waitFor(stateOf(intent.id, 'finalized'), 60_000, 'finalized');
    expect((await eventsOf(api, intent.id)).map((e) => e.type)).toEqual(ALL);
    expect(await w.readContract({ address: ALPHA_USD, abi: erc20Abi, functionName: 'balanceOf', args: [requestor] })).toBe(1_250_000n);
  }, 120_000);
});
