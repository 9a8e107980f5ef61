// Payments found on chain on the local Solana (LiteSVM + real SPL Token), through the real HTTP
// server: the built transfer carries the intent's Solana Pay reference (read-only, non-signer).
import { getCompiledTransactionMessageDecoder, generateKeyPairSigner, type KeyPairSigner, type TransactionMessageBytes } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/api';
import { DEVNET_CHAIN, DEVNET_USDC_MINT, startLocalSolana, type LocalSolana } from '../support/solana/local-solana';
import { signMessageBlob } from '../support/solana/wallet';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
type CompiledV0 = {
  staticAccounts: string[];
  header: { numSignerAccounts: number; numReadonlyNonSignerAccounts: number };
  instructions: Array<{ programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }>;
};

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
  api = s.api(s.account({ plan: 'pro' }).key);
});

afterAll(async () => {
  await s?.stop();
  await sol?.stop();
});

const stateOf = (id: string, want: string) => async () => {
  const i = (await api.get(`/v1/intents/${id}`)).body.intent;
  return i.state === want ? i : undefined;
};

describe('Solana payments found on chain', () => {
  it('the built transfer carries the reference as a read-only non-signer account; a submit of it still pays', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const intent = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '1.25', requestor })).body.intent;
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    expect(built.status).toBe(200);
    const bytes = new Uint8Array(Buffer.from(built.body.transaction.blob, 'base64')) as unknown as TransactionMessageBytes;
    const m = getCompiledTransactionMessageDecoder().decode(bytes) as CompiledV0;
    const keys = m.staticAccounts.map(String);
    const refIndex = keys.indexOf(intent.solanaReference);
    expect(refIndex).toBeGreaterThan(0);
    // Signers come first, read-only unsigned accounts last (message header layout).
    const { numSignerAccounts, numReadonlyNonSignerAccounts } = m.header;
    expect(refIndex).toBeGreaterThanOrEqual(numSignerAccounts);
    expect(refIndex).toBeGreaterThanOrEqual(keys.length - numReadonlyNonSignerAccounts);
    const transfer = m.instructions.find((ix) => keys[ix.programAddressIndex] === TOKEN_PROGRAM && ix.data?.[0] === 12)!;
    expect(transfer.accountIndices).toContain(refIndex);
    expect(transfer.accountIndices![4]).toBe(refIndex);

    const signed = await signMessageBlob(built.body.transaction.blob, [payer]);
    expect((await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed })).status).toBe(200);
    await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized');
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(1_250_000n);
  });
});
