// Paying from the payment page with a wallet, in headless Chromium against the real server and
// local chains: an EIP-1193 wallet announced by EIP-6963 (an anvil account behind it) pays a Base
// Sepolia and a Tempo intent; the page submits the hash and shows "Paid" without a reload.
import type { Hex } from 'viem';
import { erc20Abi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/api';
import { browserForFile, watchedPage } from '../support/browser';
import { DEV_KEYS, startAnvil, type Anvil } from '../support/evm/anvil';
import { ALPHA_USD } from '../support/evm/chain';
import { injectWallet } from '../support/evm/page-wallet';
import { deployToken, ownerClient } from '../support/evm/token';
import { BASE_SEPOLIA, TEMPO_MODERATO, startTestServer, type ApiClient, type TestServer } from '../support/server';

const browser = browserForFile();
let base: Anvil;
let tempo: Anvil;
let usdc: Hex;
let s: TestServer;
let api: ApiClient;
const payer = privateKeyToAccount(DEV_KEYS[2]);
const tempoPayer = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  [base, tempo] = await Promise.all([startAnvil('base', ['--block-time', '0.2']), startAnvil('tempo', ['--block-time', '0.2'])]);
  usdc = await deployToken(base, { [payer.address]: 1_000_000_000n });
  const funder = ownerClient(tempo);
  await funder.waitForTransactionReceipt({
    hash: await funder.writeContract({ address: ALPHA_USD, abi: erc20Abi, functionName: 'transfer', args: [tempoPayer.address, 50_000_000n] }),
  });
  // anvil's Tempo mode checks a native balance at pool admission (real Tempo has none to check).
  await tempo.rpc('anvil_setBalance', [tempoPayer.address, '0xffffffffffffffffffffffffffff']);
  s = await startTestServer({
    networks: {
      [BASE_SEPOLIA]: { rpc: [base.url], pollIntervalMs: 100, tokens: { USDC: { address: usdc, decimals: 6 } } },
      [TEMPO_MODERATO]: { rpc: [tempo.url], pollIntervalMs: 100 },
    },
  });
  api = s.api((await s.account({ plan: 'pro', name: 'Acme Coffee' })).key);
}, 120_000);

afterAll(async () => {
  await browser.close();
  await s?.stop();
  await Promise.all([base?.stop(), tempo?.stop()]);
});

const balanceOf = (anvil: Anvil, token: Hex, who: string) =>
  ownerClient(anvil).readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who as Hex] });

for (const [name, chain, token, amount, units] of [
  ['Base Sepolia', BASE_SEPOLIA, 'USDC', '12.34', 12_340_000n],
  ['Tempo Moderato', TEMPO_MODERATO, 'AlphaUSD', '2.5', 2_500_000n],
] as const) {
  describe(`pay from the page on ${name}`, () => {
    it('connects, sends the token transfer from the wallet, submits the hash, shows paid without a reload', async () => {
      const anvil = chain === BASE_SEPOLIA ? base : tempo;
      const tokenAddress = (chain === BASE_SEPOLIA ? usdc : ALPHA_USD) as Hex;
      const account = chain === BASE_SEPOLIA ? payer : tempoPayer;
      const requestor = privateKeyToAccount(generatePrivateKey()).address;
      const r = await api.post('/v1/intents', { chain, token, amount, requestor });
      expect(r.status).toBe(201);
      const intent = r.body.intent as { id: string; payUrl: string };

      const b = await browser.get();
      const w = await watchedPage(b, `pay-wallet-${chain.replace(':', '-')}`);
      await w.page.setViewport({ width: 390, height: 844 });
      const wallet = await injectWallet(w.page, anvil, account);
      // The wallet starts on another network: the page asks it to switch.
      wallet.behaviour.chainId = 1;
      await w.page.goto(intent.payUrl, { waitUntil: 'load' });
      await (await w.page.waitForSelector('#wallets button'))!.click();
      await w.page.waitForFunction(() => ['pending', 'confirmed', 'finalized'].includes(document.getElementById('state')?.getAttribute('data-state') ?? ''), { timeout: 20_000 });
      await w.page.waitForSelector('#end[data-end="confirmed"], #end[data-end="finalized"]', { timeout: 20_000 });
      await w.shot('paid');
      expect(wallet.calls).toEqual(expect.arrayContaining(['eth_requestAccounts', 'eth_chainId', 'wallet_switchEthereumChain', 'eth_call', 'eth_sendTransaction']));
      expect(wallet.sent).toHaveLength(1);

      const done = await waitFor(async () => {
        const g = await api.get(`/v1/intents/${intent.id}`);
        return ['confirmed', 'finalized'].includes(g.body.intent.state) ? g.body.intent : undefined;
      }, 20_000, 'paid');
      expect(done.txSignature).toBe(wallet.sent[0]);
      expect(done.fulfiller?.toLowerCase()).toBe(account.address.toLowerCase());
      expect(await balanceOf(anvil, tokenAddress, requestor)).toBe(units);
      expect(w.problems).toEqual([]);
      await w.context.close();
    });
  });
}

describe('a wallet that only sets window.ethereum (no EIP-6963 announcement)', () => {
  it('gets a button after the announcement round and pays the same way', async () => {
    const requestor = privateKeyToAccount(generatePrivateKey()).address;
    const r = await api.post('/v1/intents', { chain: BASE_SEPOLIA, token: 'USDC', amount: '3.21', requestor });
    const intent = r.body.intent as { id: string; payUrl: string };
    const w = await watchedPage(await browser.get(), 'pay-wallet-legacy');
    await w.page.setViewport({ width: 390, height: 844 });
    const wallet = await injectWallet(w.page, base, payer, 'ignored', { legacy: true });
    await w.page.goto(intent.payUrl, { waitUntil: 'load' });
    const button = await w.page.waitForSelector('#wallets button');
    expect(await button!.evaluate((b) => b.textContent)).toBe('Pay with browser wallet');
    await button!.click();
    await w.page.waitForSelector('#end[data-end="confirmed"], #end[data-end="finalized"]', { timeout: 20_000 });
    expect(wallet.sent).toHaveLength(1);
    const done = (await api.get(`/v1/intents/${intent.id}`)).body.intent;
    expect(done.txSignature).toBe(wallet.sent[0]);
    expect(await balanceOf(base, usdc, requestor)).toBe(3_210_000n);
    expect(w.problems).toEqual([]);
    await w.context.close();
  });
});
