// Contract 14 on Solana end to end: the real HTTP server over the local LiteSVM cluster, served
// by two RPC nodes (the first may restart from a snapshot and lose its history). A payment that
// landed while PayForge was down is never dropped by a node without history; a delegate's
// self-transfer is refused before broadcast; two builds in a row are the same bytes; bytes that
// landed are accepted after their blockhash expired.
import { generateKeyPairSigner, getCompiledTransactionMessageDecoder, type KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, expectError, intentIn, waitFor } from '../support/api';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, startLocalSolana, type LocalNode, type LocalSolana } from '../support/solana/local-solana';
import { sendRaw, walletTransfer } from '../support/solana/transfer';
import { signMessageBlob } from '../support/solana/wallet';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

const VALID_BLOCKS = 30;
const STATUS_CACHE_SLOTS = 40;
let sol: LocalSolana;
let first: LocalNode;
let s: TestServer;
let api: ApiClient;
let payer: KeyPairSigner;

beforeAll(async () => {
  sol = await startLocalSolana({ slotMs: 40, blockhashValidBlocks: VALID_BLOCKS, statusCacheSlots: STATUS_CACHE_SLOTS });
  sol.createMint({ address: DEVNET_USDC_MINT, decimals: 6 });
  first = await sol.addNode();
  payer = await generateKeyPairSigner();
  sol.airdrop(payer.address, 10_000_000_000n);
  await sol.setTokenBalance(DEVNET_USDC_MINT, payer.address, 1_000_000_000n);
  s = await startTestServer({
    networks: { [DEVNET_CHAIN]: { rpc: [first.url, sol.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 } },
    intents: { minTtlSeconds: 1 },
  });
  api = s.api((await s.account({ plan: 'pro' })).key);
});

afterAll(async () => {
  await s?.stop();
  await sol?.stop();
});

async function create(requestor: string, amount: string) {
  const r = await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount, requestor });
  expect(r.status).toBe(201);
  return r.body.intent as { id: string };
}

const blockhashOf = (blob: string): string =>
  getCompiledTransactionMessageDecoder().decode(new Uint8Array(Buffer.from(blob, 'base64'))).lifetimeToken;

const stateOf = (id: string, want: string) => intentIn(api, id, want);

describe('Solana verdicts from final evidence, end to end', () => {
  it('landed and finalized while PayForge was down past its TTL; the first node came back without history: no drop, pendingAtExpiry, finalized with every event', async () => {
    first.view.firstAvailableSlot = 0;
    const requestor = (await generateKeyPairSigner()).address;
    const r = await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '6.5', requestor, ttlSeconds: 5 });
    expect(r.status).toBe(201);
    const intent = r.body.intent as { id: string; expiresAt: string };
    // Stopped from the build (not only the submit): a loaded machine could otherwise spend the hash's
    // blocks on the way and the node would refuse it as Blockhash not found.
    sol.chain.pause(); // it lands only once PayForge is down
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    const signed = await signMessageBlob(built.body.transaction.blob, [payer]);
    let sig = '';
    try {
      const sub = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
      expect(sub.status, JSON.stringify(sub.body)).toBe(200);
      expect(sub.body.intent.state).toBe('pending');
      sig = sub.body.txSignature;
    } finally {
      await s.restart(async () => {
        sol.chain.resume();
        await waitFor(() => sol.chain.landedTx(sig), 20_000, 'landed');
        const landed = sol.chain.landedTx(sig)!;
        const lastValid = landed.height + VALID_BLOCKS; // its blockhash is older than the block it landed in
        await waitFor(
          () => sol.chain.heightAt('finalized') > lastValid + 1 && sol.chain.slot - landed.slot > STATUS_CACHE_SLOTS + 2,
          30_000,
          'finalized, expired and out of every status cache',
        );
        await waitFor(() => Date.now() > Date.parse(intent.expiresAt) + 200, 10_000, 'TTL over while down');
        // The first node restarts from a snapshot taken now: its ledger has nothing older.
        first.view.firstAvailableSlot = sol.chain.slot;
      });
    }
    await waitFor(stateOf(intent.id, 'finalized'), 30_000, 'finalized');
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    // The TTL ran out while a transaction could still land: pendingAtExpiry, never expired.
    expect((await api.get(`/v1/intents/${intent.id}`)).body.intent).toMatchObject({ retryRequired: false, pendingAtExpiry: true, txSignature: sig });
    expect(first.counters.calls.getFirstAvailableBlock ?? 0).toBeGreaterThan(0); // the first node was asked, and had no say
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(6_500_000n);
  }, 120_000);

  it('confirmed, then failover to an upstream 8 blocks behind the landing: no extra events; finalized once caught up', async () => {
    first.view.firstAvailableSlot = 0;
    const requestor = (await generateKeyPairSigner()).address;
    const intent = await create(requestor, '2.5');
    sol.chain.pause(); // from the build, as above
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    const signed = await signMessageBlob(built.body.transaction.blob, [payer]);
    try {
      const sub = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
      expect(sub.status, JSON.stringify(sub.body)).toBe(200);
      for (let i = 0; i < 2; i++) sol.chain.tick(); // landed and confirmed (lag 1), not finalized (lag 4)
      await waitFor(stateOf(intent.id, 'confirmed'), 20_000, 'confirmed');
      // The first upstream goes away; the other one is 8 blocks behind the landing.
      sol.view.lagBlocks = 8;
      await first.setHealth('down');
      const seen = sol.counters.calls.getSignatureStatuses ?? 0;
      await waitFor(() => (sol.counters.calls.getSignatureStatuses ?? 0) >= seen + 6, 20_000, 'ticks on the lagging upstream');
      expect((await api.get(`/v1/intents/${intent.id}`)).body.intent.state).toBe('confirmed');
    } finally {
      sol.view.lagBlocks = 0;
      await first.setHealth('ok');
      sol.chain.resume();
    }
    await waitFor(stateOf(intent.id, 'finalized'), 30_000, 'finalized');
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  }, 120_000);

  it("a delegate's self-transfer on the requestor's account is refused before broadcast: 422 transaction.mismatch on source", async () => {
    const requestor = await generateKeyPairSigner();
    const delegate = await generateKeyPairSigner();
    sol.airdrop(delegate.address, 1_000_000_000n);
    const account = await sol.setTokenBalance(DEVNET_USDC_MINT, requestor.address, 9_000_000n, { address: delegate.address, amount: 9_000_000n });
    const intent = await create(requestor.address, '3');
    const t = await walletTransfer(sol, { signer: delegate, source: account, destination: account, mint: DEVNET_USDC_MINT, amount: 3_000_000n });
    const sent = (sol.counters.calls.sendTransaction ?? 0) + (first.counters.calls.sendTransaction ?? 0);
    const e = expectError(await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: t.wire }), 422, 'transaction.mismatch');
    expect(e.details.differences).toEqual([expect.objectContaining({ field: 'source', actual: account })]);
    expect((sol.counters.calls.sendTransaction ?? 0) + (first.counters.calls.sendTransaction ?? 0)).toBe(sent);
    expect(sol.chain.landedTx(t.signature)).toBeUndefined();
    expect((await api.get(`/v1/intents/${intent.id}`)).body.intent).toMatchObject({ state: 'created', txSignature: null });
  });

  it('two builds in a row answer the same bytes while the blockhash is valid', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const intent = await create(requestor, '1.75');
    const one = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    expect(one.status).toBe(200);
    await sol.chain.waitForHeight(sol.chain.height + 2); // a newer blockhash exists by now
    const two = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    expect(two.status).toBe(200);
    expect(two.body.transaction).toEqual(one.body.transaction);
    expect(two.body.intent.ataRentLamports).toBe(one.body.intent.ataRentLamports);
  });

  it('submit by signature of a transfer the first node has no ledger for: read, whole, from the next node', async () => {
    first.view.firstAvailableSlot = Number.MAX_SAFE_INTEGER;
    try {
      const requestor = (await generateKeyPairSigner()).address;
      const destination = await sol.setTokenBalance(DEVNET_USDC_MINT, requestor, 0n);
      const t = await walletTransfer(sol, { signer: payer, source: await sol.ata(DEVNET_USDC_MINT, payer.address), destination, mint: DEVNET_USDC_MINT, amount: 1_100_000n });
      sendRaw(sol, t.wire);
      await waitFor(() => sol.chain.status(t.signature, false)?.confirmationStatus === 'finalized', 20_000, 'finalized on chain');
      const intent = await create(requestor, '1.1');
      const sub = await api.post(`/v1/intents/${intent.id}/submit`, { txSignature: t.signature });
      expect(sub.status, JSON.stringify(sub.body)).toBe(200);
      expect(sub.body.intent).toMatchObject({ state: 'finalized', fulfiller: payer.address });
      expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    } finally {
      first.view.firstAvailableSlot = 0;
    }
  }, 60_000);

  it('bytes the wallet sent itself, submitted after their blockhash expired: 200, then finalized', async () => {
    // The first node keeps no ledger: detection there cannot see the transfer, the submit must.
    first.view.firstAvailableSlot = Number.MAX_SAFE_INTEGER;
    try {
      const requestor = (await generateKeyPairSigner()).address;
      const intent = await create(requestor, '2.25');
      sol.chain.pause(); // these bytes must land: from the build to the send, as above
      const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
      const signed = await signMessageBlob(built.body.transaction.blob, [payer]);
      const sig = sendRaw(sol, signed);
      sol.chain.resume();
      await waitFor(() => sol.chain.landedTx(sig), 20_000, 'landed');
      await waitFor(() => !sol.chain.isBlockhashValid(blockhashOf(built.body.transaction.blob)), 20_000, 'blockhash expired');
      const sub = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
      expect(sub.status, JSON.stringify(sub.body)).toBe(200);
      expect(sub.body.txSignature).toBe(sig);
      await waitFor(stateOf(intent.id, 'finalized'), 30_000, 'finalized');
      expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
      expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(2_250_000n);
    } finally {
      first.view.firstAvailableSlot = 0;
    }
  }, 120_000);
});
