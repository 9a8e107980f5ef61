// Submit by signature on the local Solana (issue 9 item 2, contract 11): the payer's wallet
// composes, signs and sends its own transfer (its blockhash, no PayForge build), then PayForge is
// told the signature. Through the real HTTP server; mirrors submit-by-id-evm.test.ts.
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, expectError, intentIn, waitFor } from '../support/api';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, startLocalSolana, type LocalSolana } from '../support/solana/local-solana';
import { walletTransfer } from '../support/solana/transfer';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

let sol: LocalSolana;
let s: TestServer;
let api: ApiClient;
let payer: KeyPairSigner;

beforeAll(async () => {
  sol = await startLocalSolana({ slotMs: 40, blockhashValidBlocks: 30 });
  sol.createMint({ address: DEVNET_USDC_MINT, decimals: 6 });
  payer = await generateKeyPairSigner();
  sol.airdrop(payer.address, 10_000_000_000n);
  await sol.setTokenBalance(DEVNET_USDC_MINT, payer.address, 1_000_000_000n);
  s = await startTestServer({ networks: { [DEVNET_CHAIN]: { rpc: [sol.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 } } });
  api = s.api((await s.account({ plan: 'pro' })).key);
});

afterAll(async () => {
  await s?.stop();
  await sol?.stop();
});

/** The wallet's own transfer of `amount` from its token account to the requestor's (created empty first). */
async function ownTransfer(requestor: string, amount: bigint) {
  const destination = await sol.setTokenBalance(DEVNET_USDC_MINT, requestor, 0n);
  return walletTransfer(sol, { signer: payer, source: await sol.ata(DEVNET_USDC_MINT, payer.address), destination, mint: DEVNET_USDC_MINT, amount });
}

/** sendTransaction over JSON-RPC, as a wallet does (preflight on). */
async function send(wire: string): Promise<string> {
  const res = await fetch(sol.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [wire, { encoding: 'base64', preflightCommitment: 'confirmed' }] }),
  });
  const body = (await res.json()) as { result?: string; error?: { message: string } };
  if (!body.result) throw new Error(`sendTransaction: ${body.error?.message}`);
  return body.result;
}

async function create(requestor: string, amount: string) {
  const r = await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount, requestor });
  expect(r.status).toBe(201);
  return r.body.intent as { id: string };
}

const stateOf = (id: string, want: string) => intentIn(api, id, want);
const chainSays = (sig: string, want: 'confirmed' | 'finalized') => () => {
  const st = sol.chain.status(sig, false)?.confirmationStatus;
  return st === want || st === 'finalized';
};

const ALL = ['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized'];

describe('submit by signature', () => {
  it('not found before it exists; the wallet sends; submit -> pending then confirmed in one request; idempotent; finalized with every event in order', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const intent = await create(requestor, '4.2');
    const t = await ownTransfer(requestor, 4_200_000n);
    // Signed, not sent yet: no node knows it.
    expectError(await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: t.signature }), 422, 'transaction.not_found', 'txSignature');

    sol.chain.pause(); // hold the chain at confirmed while PayForge is told
    try {
      expect(await send(t.wire)).toBe(t.signature);
      while (!chainSays(t.signature, 'confirmed')()) sol.chain.tick();
      expect(sol.chain.status(t.signature, false)?.confirmationStatus).toBe('confirmed');
      const sub = await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: t.signature });
      expect(sub.status, JSON.stringify(sub.body)).toBe(200);
      expect(sub.body.txSignature).toBe(t.signature);
      expect(sub.body.intent).toMatchObject({ state: 'confirmed', txSignature: t.signature, fulfiller: payer.address });
      // Idempotent on the signature: the same one again changes nothing.
      const again = await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: t.signature });
      expect(again.status).toBe(200);
      expect(again.body.intent.updatedAt).toBe(sub.body.intent.updatedAt);
    } finally {
      sol.chain.resume();
    }
    await waitFor(stateOf(intent.id, 'finalized'), 30_000, 'finalized');
    const events = await eventsOf(api, intent.id);
    expect(events.map((e) => e.type)).toEqual(ALL);
    expect(events.map((e) => e.data.intent.state)).toEqual(['created', 'pending', 'confirmed', 'finalized']);
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(4_200_000n);
    // A second payment for it is refused.
    expectError(await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address }), 409, 'intent.already_fulfilled');
  }, 60_000);

  it('an already finalized transfer moves the intent through every event in one request', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const t = await ownTransfer(requestor, 750_000n);
    await send(t.wire);
    await waitFor(chainSays(t.signature, 'finalized'), 30_000, 'finalized on chain');
    // Created after the transfer landed: detection (which matches only later transfers) leaves it to the submit.
    const intent = await create(requestor, '0.75');
    const sub = await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: t.signature });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    expect(sub.body.intent).toMatchObject({ state: 'finalized', fulfiller: payer.address });
    const events = await eventsOf(api, intent.id);
    expect(events.map((e) => e.type)).toEqual(ALL);
    expect(events.map((e) => e.data.intent.state)).toEqual(['created', 'pending', 'confirmed', 'finalized']);
  }, 60_000);

  it('malformed 400, both or neither 400, wrong amount 422 mismatch; intent unchanged', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const intent = await create(requestor, '3');
    expectError(await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: 'not-a-signature' }), 400, 'request.invalid_param', 'txSignature');
    expectError(await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: '1'.repeat(88), signedTransaction: 'AAAA' }), 400, 'request.invalid_param', 'txSignature');
    const short = await ownTransfer(requestor, 2_999_999n);
    await send(short.wire);
    await waitFor(chainSays(short.signature, 'confirmed'), 30_000, 'confirmed on chain');
    const e = expectError(await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: short.signature }), 422, 'transaction.mismatch', 'txSignature');
    expect((e.details.differences as Array<{ field: string }>).map((d) => d.field)).toContain('amount');
    expect((await api.get(`/v1/intents/${intent.id}`)).body.intent).toMatchObject({ state: 'created', txSignature: null, fulfiller: null });
  }, 60_000);
});
