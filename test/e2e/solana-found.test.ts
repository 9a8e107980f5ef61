// Payments found on chain on the local Solana (LiteSVM + real SPL Token), through the real HTTP
// server: the built transfer carries the intent's Solana Pay reference (read-only, non-signer); a
// payer who sends the built transaction herself, and a wallet that composes a Solana Pay transfer
// from `paymentUri` alone (parsed by @solana/pay), are both found and driven to finalized.
import { getCompiledTransactionMessageDecoder, generateKeyPairSigner, type KeyPairSigner, type TransactionMessageBytes } from '@solana/kit';
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @solana/pay 1.0.16 wants @solana/kit ^6.5 as a peer while PayForge pins 8.4: its parseURL source
// needs only kit's `address`, so the wallet library's own parser is imported from its source file.
import { parseURL, type TransferRequestURL } from '../../node_modules/@solana/pay/src/parseURL';
import { eventTypes, intentIn, waitFor } from '../support/api';
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
  api = s.api((await s.account({ plan: 'pro' })).key);
});

afterAll(async () => {
  await s?.stop();
  await sol?.stop();
});

/** Send signed wire bytes straight to the node, as a wallet does (PayForge never sees them). */
const sendRaw = (wire: string) =>
  createSolanaRpc(sol.url).sendTransaction(wire as never, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();

const paymentFor = (tx: string) => async () =>
  ((await api.get('/v1/payments?limit=100')).body.payments as any[]).find((p) => p.txSignature === tx);

/** A Solana Pay wallet: parse the transfer request and compose transferChecked with the references. */
async function payTransferRequest(uri: string, amountDelta = 0n): Promise<string> {
  const req = parseURL(uri) as TransferRequestURL;
  const rpc = createSolanaRpc(sol.url);
  const mint = req.splToken!;
  const mintInfo = await rpc.getAccountInfo(mint, { encoding: 'base64' }).send();
  const decimals = Buffer.from(mintInfo.value!.data[0], 'base64')[44]!;
  const [source] = await findAssociatedTokenPda({ owner: payer.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [destination] = await findAssociatedTokenPda({ owner: req.recipient, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const ix = getTransferCheckedInstruction({
    source, mint, destination, authority: payer, decimals,
    amount: BigInt(Math.round(req.amount! * 10 ** decimals)) + amountDelta,
  });
  const withRefs = { ...ix, accounts: [...ix.accounts, ...(req.reference ?? []).map((r) => ({ address: address(r), role: AccountRole.READONLY }))] };
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => appendTransactionMessageInstruction(withRefs, m),
  );
  return sendRaw(getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message)));
}

const stateOf = (id: string, want: string) => intentIn(api, id, want);

describe('Solana payments found on chain', () => {
  it('the built transfer carries the reference as a read-only non-signer account; a submit of it still pays', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const intent = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '1.25', requestor })).body.intent;
    // No block from build to submit: a loaded machine could otherwise spend the hash's 30 blocks
    // (1.2 s of 40 ms slots) on the way and the node would refuse it as Blockhash not found.
    sol.chain.pause();
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
    const sub = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
    sol.chain.resume();
    expect(sub.status).toBe(200);
    await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized');
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(1_250_000n);
  });

  it('a payer signs the built message and sends it herself (no submit): found, finalized, every event', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const intent = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '2.5', requestor })).body.intent;
    sol.chain.pause(); // from build to send, as above
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    const sig = await sendRaw(await signMessageBlob(built.body.transaction.blob, [payer]));
    sol.chain.resume();
    const fin = await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized');
    expect(fin.txSignature).toBe(sig);
    expect(fin.fulfiller).toBe(payer.address);
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    const payment = await waitFor(paymentFor(sig), 5_000, 'payment');
    expect(payment).toMatchObject({ status: 'matched', reason: null, intentId: intent.id, amount: '2.5', from: payer.address, to: requestor });
  });

  it('a Solana Pay wallet pays from paymentUri alone (parsed by @solana/pay): found by its reference, finalized', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    await sol.setTokenBalance(DEVNET_USDC_MINT, requestor, 0n); // Solana Pay transfers need the recipient's token account
    const intent = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '3.75', requestor, fulfiller: null })).body.intent;
    // A second open intent of the same amount to the same requestor: only the reference tells them apart.
    const twin = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '3.75', requestor })).body.intent;
    const sig = await payTransferRequest(intent.paymentUri);
    const fin = await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized');
    expect(fin.txSignature).toBe(sig);
    expect(fin.fulfiller).toBe(payer.address);
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    expect((await api.get(`/v1/intents/${twin.id}`)).body.intent.state).toBe('created');
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, requestor)).toBe(3_750_000n);
  });

  it("the requestor's transfer to itself (from its other token account) pays nothing; the payer's later transfer pays the intent", async () => {
    const self = await generateKeyPairSigner();
    sol.airdrop(self.address, 1_000_000_000n);
    const [ownAta] = await findAssociatedTokenPda({ owner: self.address, mint: address(DEVNET_USDC_MINT), tokenProgram: TOKEN_PROGRAM_ADDRESS });
    await sol.setTokenBalance(DEVNET_USDC_MINT, self.address, 0n);
    // A second token account of the requestor's (not its associated one): its debit's owner is the requestor.
    const second = (await generateKeyPairSigner()).address;
    await sol.setTokenBalance(DEVNET_USDC_MINT, self.address, 10_000_000n, undefined, second);
    // No fulfiller: before the fix, the exact self-transfer was the one open match and confirmed it.
    const intent = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '1.5', requestor: self.address })).body.intent;
    const ix = getTransferCheckedInstruction({ source: address(second), mint: address(DEVNET_USDC_MINT), destination: ownAta, authority: self, decimals: 6, amount: 1_500_000n });
    const rpc = createSolanaRpc(sol.url);
    const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(self, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) => appendTransactionMessageInstruction(ix, m),
    );
    const own = await sendRaw(getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message)));
    await waitFor(async () => (await rpc.getSignatureStatuses([own]).send()).value[0]?.confirmationStatus === 'finalized', 20_000, 'self-transfer final');
    expect(await sol.tokenBalance(DEVNET_USDC_MINT, self.address)).toBe(1_500_000n);
    const paid = await payTransferRequest(intent.paymentUri);
    const fin = await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized');
    expect(fin.txSignature).toBe(paid);
    expect(fin.fulfiller).toBe(payer.address);
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    await waitFor(paymentFor(paid), 5_000, 'payment');
    expect(await paymentFor(own)()).toBeUndefined();
  });

  it("a payer found by the reference while another wallet's build is attached becomes the fulfiller (a refund pays the payer)", async () => {
    const requestor = (await generateKeyPairSigner()).address;
    await sol.setTokenBalance(DEVNET_USDC_MINT, requestor, 0n);
    const intent = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '1.75', requestor })).body.intent;
    // Someone else with the link asked for a build first (the pay page attaches its wallet)...
    const other = (await generateKeyPairSigner()).address;
    expect((await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: other })).status).toBe(200);
    // ...and the payer's Solana Pay wallet pays from paymentUri, reference included: it pays the intent (contract 11).
    const sig = await payTransferRequest(intent.paymentUri);
    const fin = await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized');
    expect(fin.txSignature).toBe(sig);
    expect(fin.fulfiller).toBe(payer.address);
    const refund = await api.post(`/v1/intents/${intent.id}/refund`);
    expect(refund.status).toBe(200);
    expect(refund.body.intent.requestor).toBe(payer.address);
  });

  it('the same transaction seen by submit, the reference scan and the token-account scan at once: one payment, one set of events', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    const intent = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '4', requestor })).body.intent;
    sol.chain.pause(); // from build to send and submit, as above
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    const signed = await signMessageBlob(built.body.transaction.blob, [payer]);
    const [sig, sub] = await Promise.all([sendRaw(signed), api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed })]);
    sol.chain.resume();
    expect(sub.status).toBe(200);
    await waitFor(stateOf(intent.id, 'finalized'), 20_000, 'finalized');
    await waitFor(paymentFor(sig), 5_000, 'payment');
    const all = ((await api.get('/v1/payments?limit=100')).body.payments as any[]).filter((p) => p.txSignature === sig);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ status: 'matched', intentId: intent.id });
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  });

  it('underpaid with the reference: unmatched amount_mismatch naming the intent, which does not move; expired then paid: late', async () => {
    const requestor = (await generateKeyPairSigner()).address;
    await sol.setTokenBalance(DEVNET_USDC_MINT, requestor, 0n);
    const intent = (await api.post('/v1/intents', { chain: DEVNET_CHAIN, token: 'USDC', amount: '5', requestor })).body.intent;
    const under = await payTransferRequest(intent.paymentUri, -1n);
    const p1 = await waitFor(paymentFor(under), 20_000, 'underpaid payment');
    expect(p1).toMatchObject({ status: 'unmatched', reason: 'amount_mismatch', intentId: intent.id, amountBaseUnits: '4999999', from: payer.address });
    expect((await api.get(`/v1/intents/${intent.id}`)).body.intent.state).toBe('created');

    expect((await api.post(`/v1/test/intents/${intent.id}/simulate`, { targetState: 'expired' })).body.intent.state).toBe('expired');
    const late = await payTransferRequest(intent.paymentUri);
    const p2 = await waitFor(paymentFor(late), 20_000, 'late payment');
    expect(p2).toMatchObject({ status: 'late', reason: 'intent_closed', intentId: intent.id });
    const now = (await api.get(`/v1/intents/${intent.id}`)).body.intent;
    expect(now.state).toBe('expired');
    expect(now.latePayment).toMatchObject({ txSignature: late, amount: '5', from: payer.address });
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.expired', 'intent.late_payment']);
  });
});
