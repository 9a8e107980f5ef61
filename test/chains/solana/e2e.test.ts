// End to end through the HTTP API against the local Solana: create, build, sign with a kit signer,
// submit, watch to finalized; the requestor's USDC credited. Plus duplicate submit and a mismatch.
import { generateKeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DEVNET_USDC_MINT, startLocalSolana, type LocalSolana } from '../../support/solana/local-solana';
import { signMessageBlob } from '../../support/solana/wallet';
import { SOLANA_DEVNET, startTestServer, type ApiClient, type TestServer } from '../../support/server';

let sol: LocalSolana;
let server: TestServer;
let api: ApiClient;

beforeAll(async () => {
  sol = await startLocalSolana({ slotMs: 20, confirmedLag: 2, finalizedLag: 6, blockhashValidBlocks: 40 });
  sol.createMint({ address: DEVNET_USDC_MINT, decimals: 6 });
  server = await startTestServer({
    networks: { [SOLANA_DEVNET]: { rpc: [sol.url], pollIntervalMs: 50, rebroadcastIntervalMs: 200 } },
  } as never);
  api = server.api(server.account({ mode: 'test' }).key);
});

afterAll(async () => {
  await server?.stop();
  await sol?.stop();
});

test('HTTP: create -> build -> sign -> submit -> finalized, requestor credited; duplicate submit is a no-op', async () => {
  const fulfiller = await generateKeyPairSigner();
  const requestor = await generateKeyPairSigner();
  sol.airdrop(fulfiller.address, 1_000_000_000n);
  await sol.setTokenBalance(DEVNET_USDC_MINT, fulfiller.address, 20_000_000n);

  const c = await api.post('/v1/intents', { chain: SOLANA_DEVNET, token: 'USDC', amount: '12.5', requestor: requestor.address });
  expect(c.status).toBe(201);
  const id = c.body.intent.id as string;
  expect(c.body.intent.tokenAddress).toBe(DEVNET_USDC_MINT);

  const b = await api.post(`/v1/intents/${id}/build`, { fulfiller: fulfiller.address });
  expect(b.status).toBe(200);
  expect(b.body.transaction.format).toBe('solana_v0_message');
  expect(b.body.transaction.ataRentLamports).toBe(2_039_280);
  expect(b.body.intent.ataRentLamports).toBe(2_039_280);

  const signed = await signMessageBlob(b.body.transaction.blob, [fulfiller]);
  const s = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: signed });
  expect(s.status).toBe(200);
  expect(s.body.intent.state).toBe('pending');
  const txSignature = s.body.txSignature as string;
  expect(s.body.intent.txSignature).toBe(txSignature);

  const again = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: signed });
  expect(again.status).toBe(200);
  expect(again.body.txSignature ?? again.body.intent.txSignature).toBe(txSignature);

  for (let i = 0; i < 400; i++) {
    if ((await api.get(`/v1/intents/${id}`)).body.intent.state === 'finalized') break;
    await Bun.sleep(50);
  }
  const final = (await api.get(`/v1/intents/${id}`)).body.intent;
  expect(final.state).toBe('finalized');
  expect(final.confirmedAt).not.toBeNull();
  expect(final.finalizedAt).not.toBeNull();
  expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor.address)).toBe(12_500_000n);
  expect(await sol.tokenBalance(DEVNET_USDC_MINT, fulfiller.address)).toBe(7_500_000n);
  sol.assertNoUnexpectedCalls();
});

test('HTTP: a transaction paying someone else -> 422 transaction.mismatch; garbage -> 400 invalid_param', async () => {
  const fulfiller = await generateKeyPairSigner();
  const requestor = await generateKeyPairSigner();
  const thief = await generateKeyPairSigner();
  sol.airdrop(fulfiller.address, 1_000_000_000n);
  await sol.setTokenBalance(DEVNET_USDC_MINT, fulfiller.address, 5_000_000n);
  const mine = (await api.post('/v1/intents', { chain: SOLANA_DEVNET, token: 'USDC', amount: '1', requestor: requestor.address, fulfiller: fulfiller.address })).body.intent;
  const theirs = (await api.post('/v1/intents', { chain: SOLANA_DEVNET, token: 'USDC', amount: '1', requestor: thief.address, fulfiller: fulfiller.address })).body.intent;
  const built = await api.post(`/v1/intents/${theirs.id}/build`, {});
  expect(built.status).toBe(200);
  const signed = await signMessageBlob(built.body.transaction.blob, [fulfiller]);

  const r = await api.post(`/v1/intents/${mine.id}/submit`, { signedTransaction: signed });
  expect(r.status).toBe(422);
  expect(r.body.error.code).toBe('transaction.mismatch');
  expect((await api.get(`/v1/intents/${mine.id}`)).body.intent.state).toBe('created');

  const g = await api.post(`/v1/intents/${mine.id}/submit`, { signedTransaction: 'bm90IGEgdHJhbnNhY3Rpb24=' });
  expect(g.status).toBe(400);
  expect(g.body.error.code).toBe('request.invalid_param');
  expect(g.body.error.param).toBe('signedTransaction');
});
