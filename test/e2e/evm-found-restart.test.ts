// A detected payment survives a restart (contract 11, crash windows): anvil mines only on demand,
// a wallet pays from paymentUri, the intent is confirmed by detection, the server restarts on the
// same database, and once the block is final the intent reaches finalized, each event once.
import { parse as parseEip681 } from 'eth-url-parser';
import { createWalletClient, defineChain, erc20Abi, http, publicActions, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, intentIn, waitFor } from '../support/api';
import { DEV_KEYS, startAnvil, type Anvil } from '../support/evm/anvil';
import { deployToken } from '../support/evm/token';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

const BASE = 'eip155:84532';
let anvil: Anvil;
let s: TestServer;
let api: ApiClient;
const payer = privateKeyToAccount(DEV_KEYS[4]);

beforeAll(async () => {
  anvil = await startAnvil('base'); // automine: one block per transaction, `finalized` two blocks behind
  const usdc = await deployToken(anvil, { [payer.address]: 100_000_000n });
  s = await startTestServer({ networks: { [BASE]: { rpc: [anvil.url], pollIntervalMs: 50, tokens: { USDC: { address: usdc, decimals: 6 } } } } });
  api = s.api((await s.account()).key);
}, 60_000);

afterAll(async () => {
  await s?.stop();
  await anvil?.stop();
});

const stateOf = (id: string, want: string) => intentIn(api, id, want);

describe('detection across a restart', () => {
  it('a detected payment confirmed before the restart is finalized after it, every event once', async () => {
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const intent = (await api.post('/v1/intents', { chain: BASE, token: 'USDC', amount: '8', requestor })).body.intent;
    const req = parseEip681(intent.paymentUri);
    const wallet = createWalletClient({
      account: payer,
      chain: defineChain({ id: 84532, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.url] } } }),
      transport: http(anvil.url),
      pollingInterval: 50,
    }).extend(publicActions);
    const hash = await wallet.writeContract({
      address: req.target_address as Hex, abi: erc20Abi, functionName: 'transfer',
      args: [req.parameters!.address as Hex, BigInt(req.parameters!.uint256!)],
    });
    await wallet.waitForTransactionReceipt({ hash });
    const confirmed = await waitFor(stateOf(intent.id, 'confirmed'), 20_000, 'confirmed');
    expect(confirmed.txSignature).toBe(hash);

    await s.restart();
    for (let i = 0; i < 3; i++) await anvil.rpc('evm_mine', []);
    const fin = await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized after restart');
    expect(fin.txSignature).toBe(hash);
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    const payments = ((await api.get('/v1/payments')).body.payments as any[]).filter((p) => p.txSignature === hash);
    expect(payments).toHaveLength(1);
  });
});
