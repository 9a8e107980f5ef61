// The write-ahead submission record (contract 11) is resolved by the verdict it follows from, in
// the same write: through the real server on the local Solana (LiteSVM), a submitted transaction
// that lands is `landed`, one that fails on chain `failed`, one the leader lost `dropped`; one the
// payer sent herself is `landed` whether submit by signature or detection tells PayForge first.
import { createSolanaRpc, generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Submission } from '../../src/store/submissions';
import { waitFor } from '../support/api';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, startLocalSolana, type LocalSolana } from '../support/solana/local-solana';
import { signMessageBlob } from '../support/solana/wallet';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

let sol: LocalSolana;
let s: TestServer;
let api: ApiClient;

beforeAll(async () => {
  sol = await startLocalSolana({ slotMs: 40, blockhashValidBlocks: 30 });
  sol.createMint({ address: DEVNET_USDC_MINT, decimals: 6 });
  s = await startTestServer({ networks: { [DEVNET_CHAIN]: { rpc: [sol.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 } } });
  api = s.api((await s.account({ plan: 'pro' })).key);
}, 60_000);

afterAll(async () => {
  await s?.stop();
  await sol?.stop();
});

const row = async (sig: string): Promise<Submission | null> => s.repos.submissions.findByTx(DEVNET_CHAIN, sig);

async function funded(usdc = 100_000_000n): Promise<KeyPairSigner> {
  const k = await generateKeyPairSigner();
  sol.airdrop(k.address, 1_000_000_000n);
  await sol.setTokenBalance(DEVNET_USDC_MINT, k.address, usdc);
  return k;
}

async function built(payer: KeyPairSigner, amount = '2') {
  const requestor = (await generateKeyPairSigner()).address;
  const intent = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount, requestor })).body.intent;
  const b = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
  expect(b.status).toBe(200);
  return { intent, signed: await signMessageBlob(b.body.transaction.blob, [payer]) };
}

const stateIs = (id: string, want: string) => async () => ((await api.get(`/v1/intents/${id}`)).body.intent.state === want ? true : undefined);

describe('submission outcome', () => {
  it('submitted and landed: sent, then landed once confirmed', async () => {
    const payer = await funded();
    const { intent, signed } = await built(payer);
    const r = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
    expect(r.status).toBe(200);
    const sig = r.body.intent.txSignature as string;
    await waitFor(stateIs(intent.id, 'finalized'), 20_000, 'finalized');
    expect(await row(sig)).toMatchObject({ intentId: intent.id, source: 'submit', status: 'sent', outcome: 'landed' });
  });

  it('submitted and failed on chain (tokens gone between preflight and landing): failed', async () => {
    const payer = await funded(2_000_000n);
    const { intent, signed } = await built(payer);
    sol.chain.pause();
    const r = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
    expect(r.status).toBe(200);
    await sol.setTokenBalance(DEVNET_USDC_MINT, payer.address, 1n);
    sol.chain.resume();
    await waitFor(stateIs(intent.id, 'failed'), 20_000, 'failed');
    expect(await row(r.body.intent.txSignature)).toMatchObject({ status: 'sent', outcome: 'failed' });
  });

  it('submitted and lost by the leader: dropped once its blockhash expired (the intent is payable again)', async () => {
    const payer = await funded();
    const { intent, signed } = await built(payer);
    sol.setDropTransactions(true);
    try {
      const r = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
      expect(r.status).toBe(200);
      await waitFor(stateIs(intent.id, 'dropped'), 30_000, 'dropped');
      expect(await row(r.body.intent.txSignature)).toMatchObject({ status: 'sent', outcome: 'dropped' });
    } finally {
      sol.setDropTransactions(false);
    }
  });

  it('sent by the payer: landed, whether submit by signature or detection records it', async () => {
    const rpc = createSolanaRpc(sol.url);
    const send = (wire: string) => rpc.sendTransaction(wire as never, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();

    const payer = await funded();
    const a = await built(payer);
    const sigA = await send(a.signed);
    await waitFor(async () => (await api.post(`/v1/intents/${a.intent.id}/submit`, { txSignature: sigA })).status === 200 || undefined, 20_000, 'submit by id');
    await waitFor(stateIs(a.intent.id, 'finalized'), 20_000, 'finalized');
    expect(await row(sigA)).toMatchObject({ intentId: a.intent.id, status: 'sent', outcome: 'landed' });

    const b = await built(payer, '3');
    const sigB = await send(b.signed);
    await waitFor(stateIs(b.intent.id, 'finalized'), 20_000, 'finalized by detection');
    expect(await row(sigB)).toMatchObject({ intentId: b.intent.id, status: 'sent', outcome: 'landed' });
  });
});
