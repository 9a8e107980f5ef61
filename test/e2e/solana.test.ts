// End to end on the local Solana (LiteSVM + real SPL Token): create -> build -> sign with a kit
// signer -> submit -> watched to finalized, through the real HTTP server, with webhooks received
// by a real loopback receiver.
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intentIn, waitFor } from '../support/api';
import { startReceiver, type Receiver } from '../support/receiver';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, startLocalSolana, type LocalSolana } from '../support/solana/local-solana';
import { signMessageBlob } from '../support/solana/wallet';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

let sol: LocalSolana;
let s: TestServer;
let rx: Receiver;
let api: ApiClient;
let fulfiller: KeyPairSigner;


const stateOf = (id: string, want: string) => intentIn(api, id, want);

beforeAll(async () => {
  sol = await startLocalSolana({ slotMs: 40, blockhashValidBlocks: 30 });
  sol.createMint({ address: DEVNET_USDC_MINT, decimals: 6 });
  fulfiller = await generateKeyPairSigner();
  sol.airdrop(fulfiller.address, 10_000_000_000n);
  await sol.setTokenBalance(DEVNET_USDC_MINT, fulfiller.address, 1_000_000_000n);
  rx = await startReceiver();
  s = await startTestServer({
    networks: { [DEVNET_CHAIN]: { rpc: [sol.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 } },
    webhooks: { allowPrivateUrls: true },
  });
  const { key, accountId } = await s.account({ plan: 'pro' });
  await s.setEndpoint(accountId, 'test', rx.url('/solana'));
  api = s.api(key);
});

afterAll(async () => {
  await s?.stop();
  await rx?.close();
  await sol?.stop();
});

async function createIntent(requestor: string, amount = '12.34') {
  const r = await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount, requestor });
  expect(r.status).toBe(201);
  return r.body.intent as { id: string };
}

describe('Solana end to end', () => {
  it('pays an intent: build, sign, submit, confirmed, finalized, credited, webhooks in order', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const intent = await createIntent(requestor);
    // No block from build to submit: a loaded machine could otherwise spend the hash's 30 blocks
    // (1.2 s of 40 ms slots) on the way and the node would refuse it as Blockhash not found.
    sol.chain.pause();
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: fulfiller.address });
    expect(built.status).toBe(200);
    expect(built.body.transaction.format).toBe('solana_v0_message');
    expect(built.body.transaction.ataRentLamports).toBeGreaterThan(0); // requestor has no token account yet
    expect(built.body.intent.ataRentLamports).toBe(built.body.transaction.ataRentLamports);
    expect(built.body.transaction.estimatedFeeLamports).toBeGreaterThan(0);

    const signed = await signMessageBlob(built.body.transaction.blob, [fulfiller]);
    const sub = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
    sol.chain.resume();
    expect(sub.status).toBe(200);
    expect(sub.body.intent.state).toBe('pending');
    expect(sub.body.txSignature).toBe(sub.body.intent.txSignature);

    // Idempotent on the signature: same bytes again -> 200, unchanged, no new event.
    const again = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
    expect(again.status).toBe(200);
    expect(again.body.intent.updatedAt).toBe(sub.body.intent.updatedAt);

    const fin = await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized');
    expect(fin.confirmedAt).not.toBeNull();
    expect(fin.finalizedAt).not.toBeNull();
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(12_340_000n);

    const hooks = await rx.waitFor(4, { prefix: '/solana', timeoutMs: 10_000 });
    const types = hooks.map((h) => JSON.parse(h.body)).filter((e) => e.data.intent.id === intent.id).map((e) => e.type);
    expect(types).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);

    // The pool this network used shows its upstream's breaker state, closed, URL redacted.
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`payforge_rpc_upstream_open\\{chain="${DEVNET_CHAIN}",upstream="[^"]+"\\} 0`));
  });

  it('charges no rent when the requestor token account exists', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    await sol.setTokenBalance(DEVNET_USDC_MINT, requestor, 0n);
    const intent = await createIntent(requestor, '1');
    sol.chain.pause(); // from build to submit, as above
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: fulfiller.address });
    expect(built.body.transaction.ataRentLamports).toBe(0);
    const signed = await signMessageBlob(built.body.transaction.blob, [fulfiller]);
    const sub = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
    sol.chain.resume();
    expect(sub.status).toBe(200);
    await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized');
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(1_000_000n);
  });

  it('refuses a transaction that pays someone else, and a wrong signer', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const other = (await generateKeyPairSigner()).address;
    const a = await createIntent(requestor, '2');
    const b = await createIntent(other, '2');
    const builtB = await api.post(`/v1/intents/${b.id}/build`, { fulfiller: fulfiller.address });
    await api.post(`/v1/intents/${a.id}/build`, { fulfiller: fulfiller.address });
    const payingOther = await signMessageBlob(builtB.body.transaction.blob, [fulfiller]);
    const r = await api.post(`/v1/intents/${a.id}/submit`, { signedTransaction: payingOther });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('transaction.mismatch');

    const impostor = await generateKeyPairSigner();
    sol.airdrop(impostor.address, 1_000_000_000n);
    await sol.setTokenBalance(DEVNET_USDC_MINT, impostor.address, 10_000_000n);
    const c = await createIntent(requestor, '2');
    const builtImpostor = await api.post(`/v1/intents/${c.id}/build`, { fulfiller: impostor.address });
    const byImpostor = await signMessageBlob(builtImpostor.body.transaction.blob, [impostor]);
    const wrong = await api.post(`/v1/intents/${a.id}/submit`, { signedTransaction: byImpostor });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.code).toBe('transaction.mismatch');
    expect((await api.get(`/v1/intents/${a.id}`)).body.intent.state).toBe('created');

    const garbage = await api.post(`/v1/intents/${a.id}/submit`, { signedTransaction: 'AAAA' });
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.param).toBe('signedTransaction');
  });

  it('a dropped transaction asks for a re-sign, and the re-signed one confirms', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const intent = await createIntent(requestor, '3');
    sol.chain.pause(); // from build to submit, as above: dropped by the node, never refused on the way
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: fulfiller.address });
    sol.setDropTransactions(true);
    const signed = await signMessageBlob(built.body.transaction.blob, [fulfiller]);
    const first = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
    sol.chain.resume();
    expect(first.status).toBe(200);
    const dropped = await waitFor(stateOf(intent.id, 'dropped'), 30_000, 'dropped');
    expect(dropped.retryRequired).toBe(true);
    sol.setDropTransactions(false);

    sol.chain.pause(); // from build to submit, as above
    const rebuilt = await api.post(`/v1/intents/${intent.id}/build`, {});
    expect(rebuilt.status).toBe(200);
    const resigned = await signMessageBlob(rebuilt.body.transaction.blob, [fulfiller]);
    const sub = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: resigned });
    sol.chain.resume();
    expect(sub.status).toBe(200);
    expect(sub.body.intent.retryRequired).toBe(false);
    await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized');
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(3_000_000n);
    const events = (await api.get('/v1/events?limit=100')).body.events
      .filter((e: any) => e.data.intent.id === intent.id)
      .map((e: any) => e.type)
      .reverse();
    expect(events).toEqual(['intent.created', 'intent.pending', 'intent.retry_required', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  });

  it('answers 503 rpc.unavailable when every upstream is down, leaving the intent unchanged', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const intent = await createIntent(requestor, '4');
    await sol.setHealth('http500');
    try {
      const r = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: fulfiller.address });
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('rpc.unavailable');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.body.error.details.retry_after).toBeGreaterThan(0);
      const g = await api.get(`/v1/intents/${intent.id}`);
      expect(g.body.intent.state).toBe('created');
      expect(g.body.intent.fulfiller).toBeNull();
    } finally {
      await sol.setHealth('ok');
    }
  });
});
