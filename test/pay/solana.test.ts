// Paying a Solana intent from the payment page in headless Chromium, against the real server
// (behind an HTTPS front, as Solana Pay requires) and the local Solana (LiteSVM): a Wallet
// Standard wallet registered in the page, with a kit key pair behind it, pays through the sign
// path (the page submits the signed bytes) and the sign-and-send path (the wallet sends, the page
// submits the signature); the payer hears plainly of a rejected request, a wallet on another
// cluster and too little balance. Then a Solana Pay wallet scans the QR as Chromium draws it and
// pays through the transaction request (GET, POST {account}) with @solana/pay's own code: found
// on chain with no submit, finalized.
import { createSolanaRpc, generateKeyPairSigner, getBase64EncodedWireTransaction, signTransaction, type KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @solana/pay 1.0.16 wants @solana/kit ^6.5 as a peer while PayForge pins 8.4: the wallet
// library's own parser and transaction-request client are imported from its source files.
import { fetchTransaction } from '../../node_modules/@solana/pay/src/fetchTransaction';
import { parseURL, type TransactionRequestURL } from '../../node_modules/@solana/pay/src/parseURL';
import { eventTypes, waitFor } from '../support/api';
import { browserForFile, watchedPage, type Watched } from '../support/browser';
import { readQr } from '../support/qr';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, startLocalSolana, type LocalSolana } from '../support/solana/local-solana';
import { injectSolanaWallet } from '../support/solana/page-wallet';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';
import { startTlsFront, trustTestCertificate, type TlsFront } from '../support/tls-front';

const browser = browserForFile();
let sol: LocalSolana;
let front: TlsFront;
let s: TestServer;
let api: ApiClient;
let payer: KeyPairSigner;
let untrust: () => void;

beforeAll(async () => {
  sol = await startLocalSolana({ slotMs: 40, blockhashValidBlocks: 60 });
  sol.createMint({ address: DEVNET_USDC_MINT, decimals: 6 });
  payer = await generateKeyPairSigner();
  sol.airdrop(payer.address, 10_000_000_000n);
  await sol.setTokenBalance(DEVNET_USDC_MINT, payer.address, 1_000_000_000n);
  front = startTlsFront();
  s = await startTestServer({
    publicUrl: front.url,
    networks: { [DEVNET_CHAIN]: { rpc: [sol.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 } },
  });
  front.target = s.url;
  untrust = trustTestCertificate();
  api = s.api((await s.account({ plan: 'pro', name: 'Acme Coffee' })).key);
}, 120_000);

afterAll(async () => {
  untrust?.();
  await browser.close();
  await s?.stop();
  await front?.stop();
  await sol?.stop();
});

async function create(amount: string, extra: Record<string, unknown> = {}) {
  const requestor = (await generateKeyPairSigner()).address;
  const r = await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount, requestor, ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.intent as { id: string; payToken: string; payUrl: string; requestor: string; solanaReference: string };
}

/** The page on the plain origin of the server (the HTTPS front is for wallets that follow links). */
async function openWithWallet(name: string, token: string, o: Omit<Parameters<typeof injectSolanaWallet>[1], 'rpcUrl'>) {
  const w = await watchedPage(await browser.get(), `pay-solana-${name}`);
  await w.page.setViewport({ width: 390, height: 844 });
  const wallet = await injectSolanaWallet(w.page, { rpcUrl: sol.url, ...o });
  const res = await w.page.goto(`${s.url}/pay/${token}`, { waitUntil: 'load' });
  expect(res!.status()).toBe(200);
  return { w, wallet };
}

const stateOf = (id: string, want: string[]) => async () => {
  const i = (await api.get(`/v1/intents/${id}`)).body.intent;
  return want.includes(i.state) ? i : undefined;
};

async function payAndSeePaid(w: Watched) {
  await (await w.page.waitForSelector('#wallets button'))!.click();
  await w.page.waitForSelector('#end[data-end="confirmed"], #end[data-end="finalized"]', { timeout: 30_000 });
  expect(await w.page.$eval('#end-title', (e) => e.textContent)).toBe('Paid');
  // In the payer's words, with the transaction that paid (not the machine's state name).
  expect(await w.page.$eval('#state', (e) => e.textContent)).toMatch(/^Payment received: (confirmed|final) on chain \(transaction \w{10}…\)$/);
}

describe('Solana wallets on the payment page (Wallet Standard)', () => {
  it('sign path: the wallet signs the built message, the page submits it, paid without a reload', async () => {
    const i = await create('1.25');
    const { w, wallet } = await openWithWallet('sign', i.payToken, { signer: payer, features: ['signTransaction'] });
    expect(await (await w.page.waitForSelector('#wallets button'))!.evaluate((b) => b.textContent)).toBe('Pay with Test Solana Wallet');
    await payAndSeePaid(w);
    await w.shot('paid-sign');
    expect(wallet.signed).toHaveLength(1);
    expect(wallet.sent).toEqual([]); // PayForge broadcast it (submit), not the wallet
    const done = await waitFor(stateOf(i.id, ['finalized']), 30_000, 'finalized');
    expect(done.fulfiller).toBe(payer.address);
    expect(await eventTypes(api, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, i.requestor)).toBe(1_250_000n);
    expect(w.problems).toEqual([]);
    await w.context.close();
  });

  it('sign-and-send path: the wallet sends it itself, the page submits the signature, paid', async () => {
    const i = await create('2.5');
    const { w, wallet } = await openWithWallet('send', i.payToken, { signer: payer, features: ['signAndSendTransaction'] });
    // The node may not show the just-sent transaction yet: the page hears transaction.not_found
    // and tells PayForge again (the only refusals it may meet on this path).
    const refusals: Promise<string>[] = [];
    w.page.on('response', (r) => {
      if (r.url().endsWith('/submit') && r.status() !== 200) refusals.push(r.json().then((b: { error: { code: string } }) => `${r.status()} ${b.error.code}`));
    });
    await payAndSeePaid(w);
    await w.shot('paid-sign-and-send');
    expect(wallet.sent).toHaveLength(1);
    const done = await waitFor(stateOf(i.id, ['finalized']), 30_000, 'finalized');
    expect(done.txSignature).toBe(wallet.sent[0]);
    expect(done.fulfiller).toBe(payer.address);
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, i.requestor)).toBe(2_500_000n);
    for (const r of await Promise.all(refusals)) expect(r).toBe('422 transaction.not_found');
    expect(w.problems.filter((p) => !/\/submit$|status of 422/.test(p))).toEqual([]);
    await w.context.close();
  });

  it('tells the payer: rejected in the wallet, wallet on another cluster, too little USDC or SOL; nothing moves', async () => {
    const i = await create('5');
    const message = (w: Watched, re: RegExp) =>
      w.page.waitForFunction((src: string) => new RegExp(src).test(document.getElementById('message')!.textContent ?? ''), {}, re.source);
    const read = (w: Watched) => w.page.$eval('#message', (e) => e.textContent);
    const click = async (w: Watched) => (await w.page.waitForSelector('#wallets button:not([disabled])'))!.click();

    // The person closes the wallet's prompt, on either path.
    for (const features of [['signTransaction'], ['signAndSendTransaction']] as const) {
      const { w, wallet } = await openWithWallet(`rejected-${features[0]}`, i.payToken, { signer: payer, features: [...features] });
      wallet.behaviour.reject = true;
      await click(w);
      await message(w, /rejected/);
      expect(await read(w)).toBe('You rejected the request in your wallet; nothing was paid.');
      await w.shot('rejected');
      expect(wallet.sent).toEqual([]);
      await w.context.close();
    }

    // The rejected attempts built for `payer`: the request is now that wallet's; another is told so,
    // without learning which wallet that is (a link holder is not told who else pays).
    const other = await generateKeyPairSigner();
    const o = await openWithWallet('other-wallet', i.payToken, { signer: other, features: ['signTransaction'] });
    await click(o.w);
    await message(o.w, /started from/);
    expect(await read(o.w)).toBe('This payment was started from another wallet: pay from that wallet.');
    expect(o.wallet.signed).toEqual([]);
    expect(await o.w.page.content()).not.toContain(payer.address);
    // A Solana Pay wallet POSTing its account hears the same, about its own field.
    const sp = await fetch(`${s.url}/pay/${i.payToken}/solana-pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ account: other.address }) });
    expect(sp.status).toBe(400);
    const spText = await sp.text();
    expect(spText).not.toContain(payer.address);
    expect(JSON.parse(spText).error).toMatchObject({ param: 'account', message: 'This payment was started from another wallet: pay from that wallet.' });
    await o.w.context.close();

    // A wallet on mainnet: told before anything is built or signed.
    const m = await openWithWallet('wrong-network', i.payToken, { signer: payer, features: ['signTransaction'], chains: ['solana:mainnet'] });
    await click(m.w);
    await message(m.w, /switch it to/);
    expect(await read(m.w)).toBe('Your wallet is on solana:mainnet: switch it to Solana devnet, then try again.');
    expect(m.wallet.signed).toEqual([]);
    await m.w.shot('wrong-network');
    await m.w.context.close();

    // Too little USDC: the node's preflight refuses it, seen by submit (sign) or by the wallet (sign-and-send).
    // (Build attaches the fulfiller to the intent: each payer gets an intent of its own.)
    const poor = await generateKeyPairSigner();
    sol.airdrop(poor.address, 1_000_000_000n);
    await sol.setTokenBalance(DEVNET_USDC_MINT, poor.address, 1_000_000n);
    const j = await create('5');
    for (const features of [['signTransaction'], ['signAndSendTransaction']] as const) {
      const p = await openWithWallet(`low-usdc-${features[0]}`, j.payToken, { signer: poor, features: [...features] });
      await click(p.w);
      await message(p.w, /Too little/);
      expect(await read(p.w)).toBe('Too little USDC in your wallet to pay 5 USDC; nothing was paid.');
      await p.w.shot('low-usdc');
      await p.w.context.close();
    }

    // USDC enough but no SOL for the fee.
    const noSol = await generateKeyPairSigner();
    await sol.setTokenBalance(DEVNET_USDC_MINT, noSol.address, 10_000_000n);
    const k = await create('5');
    const n = await openWithWallet('no-sol', k.payToken, { signer: noSol, features: ['signTransaction'] });
    await click(n.w);
    await message(n.w, /Too little/);
    expect(await read(n.w)).toBe('Too little SOL in your wallet to pay the network fee; nothing was paid.');
    await n.w.context.close();

    for (const x of [i, j, k]) {
      expect((await api.get(`/v1/intents/${x.id}`)).body.intent.state).toBe('created');
      expect(await sol.tokenBalance(DEVNET_USDC_MINT, x.requestor)).toBeNull();
    }
  });
});

describe('a transaction that does not land', () => {
  it('dropped: the page says no money moved and the wallet button pays again, without a reload', async () => {
    const i = await create('4.5');
    const { w, wallet } = await openWithWallet('dropped', i.payToken, { signer: payer, features: ['signTransaction'] });
    // The leader loses it: pending, then dropped once its blockhash expired (the intent is payable again).
    sol.setDropTransactions(true);
    try {
      await (await w.page.waitForSelector('#wallets button'))!.click();
      await w.page.waitForSelector('#state[data-state="pending"]', { timeout: 20_000 });
      await w.page.waitForSelector('#state[data-state="dropped"]', { timeout: 30_000 });
    } finally {
      sol.setDropTransactions(false);
    }
    expect(await w.page.$eval('#message', (e) => e.textContent)).toBe('The last transaction did not land: no money moved. Try again.');
    expect(await w.page.$eval('#pay', (e) => (e as HTMLElement).hidden)).toBe(false);
    await w.shot('dropped-try-again');
    await (await w.page.waitForSelector('#wallets button:not([disabled])'))!.click();
    await w.page.waitForSelector('#end[data-end="confirmed"], #end[data-end="finalized"]', { timeout: 30_000 });
    expect(wallet.signed).toHaveLength(2);
    expect(wallet.signed[1]).not.toBe(wallet.signed[0]); // built again on a fresh blockhash
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, i.requestor)).toBe(4_500_000n);
    const events = await eventTypes(api, i.id);
    expect(events.slice(0, 4)).toEqual(['intent.created', 'intent.pending', 'intent.retry_required', 'intent.pending']);
    await w.context.close();
  });
});

describe('Solana Pay transaction request from the page QR', () => {
  it('a wallet scans the QR as Chromium renders it, GETs {label, icon}, POSTs {account}, signs and sends: found with no submit, finalized', async () => {
    const i = await create('3.75');
    const w = await watchedPage(await browser.get(), 'pay-solana-pay');
    await w.page.setViewport({ width: 390, height: 844 });
    await w.page.goto(i.payUrl.replace(front.url, s.url), { waitUntil: 'load' });
    expect(i.payUrl.startsWith(`${front.url}/pay/`)).toBe(true);

    // What the phone's camera reads, parsed by the wallet library.
    const scanned = await readQr(w.page, '#qr');
    const req = parseURL(scanned) as TransactionRequestURL;
    expect(String(req.link)).toBe(`${front.url}/pay/${i.payToken}/solana-pay`);

    // GET: what the wallet shows before asking the payer.
    const got = await fetch(req.link, { headers: { accept: 'application/json' } });
    expect(got.status).toBe(200);
    expect(got.headers.get('access-control-allow-origin')).toBe('*');
    const meta = (await got.json()) as { label: string; icon: string };
    expect(meta.label).toBe('Acme Coffee');
    const icon = await fetch(meta.icon);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);

    // POST {account}: the library's own client fetches and checks the transaction.
    const rpc = createSolanaRpc(sol.url);
    const tx = await fetchTransaction(rpc, payer.address, req.link, { commitment: 'confirmed' });
    const signed = await signTransaction([payer.keyPair], tx);
    const sig = await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64', preflightCommitment: 'confirmed' }).send();

    // No submit: detection finds it by its reference; the page follows without a reload.
    const fin = await waitFor(stateOf(i.id, ['finalized']), 30_000, 'finalized');
    expect(fin.txSignature).toBe(sig);
    expect(fin.fulfiller).toBe(payer.address);
    expect(await eventTypes(api, i.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    const payments = (await api.get('/v1/payments?limit=100')).body.payments as Array<{ txSignature: string; status: string; intentId: string }>;
    expect(payments.find((p) => p.txSignature === sig)).toMatchObject({ status: 'matched', intentId: i.id });
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, i.requestor)).toBe(3_750_000n);
    await w.page.waitForSelector('#end[data-end="confirmed"], #end[data-end="finalized"]', { timeout: 10_000 });
    await w.shot('paid-solana-pay');
    expect(w.problems).toEqual([]);
    await w.context.close();
  });
});
