// Payments found on chain without submit (contract section 11), on anvil through the real HTTP
// server: wallets that compose the transfer from `paymentUri` alone (parsed by an EIP-681 library)
// and send it themselves, a built transaction sent straight to the node, under/overpaid,
// ambiguous and late payments, the payments ledger, and webhooks on a real receiver.
import { parse as parseEip681 } from 'eth-url-parser';
import { createWalletClient, defineChain, erc20Abi, http, publicActions, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, expectError, waitFor } from '../support/api';
import { startAnvil, DEV_KEYS, type Anvil } from '../support/evm/anvil';
import { ALPHA_USD, b64ToHex, signBlob } from '../support/evm/chain';
import { deployToken, ownerClient, tokenAbi } from '../support/evm/token';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type ApiClient, type TestServer } from '../support/server';

/**
 * How long a chain outcome may take to show (found, matched, finalized, its webhook). Each step is
 * a durable commit the next one waits for (the detector's cursor each tick, each report, each move,
 * the answer of the GET that reads it): ~0.6 s per test normally, but with every fsync slowed to
 * 0.8 s (strace fault injection) 5-17 s. Under a full suite's disk load a 20 s deadline timed out
 * (the Tempo cases, twice). A deadline, never a measure: nothing asserts how long it took.
 */
const CHAIN_MS = 60_000;

const BASE = 'eip155:84532';
const TEMPO = 'eip155:42431';

let base: Anvil;
let tempo: Anvil;
let usdc: Hex;
let s: TestServer;
let rx: Receiver;
let api: ApiClient;
let accountId: string;
const payer = privateKeyToAccount(DEV_KEYS[2]);
const tempoPayer = privateKeyToAccount(generatePrivateKey());

/** A browser-wallet stand-in: a viem wallet that picks its own nonce and gas and sends itself. */
function wallet(anvil: Anvil, account: PrivateKeyAccount) {
  return createWalletClient({
    account,
    chain: defineChain({
      id: anvil.chainId,
      name: `anvil ${anvil.chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.url] } },
    }),
    transport: http(anvil.url),
    pollingInterval: 50,
  }).extend(publicActions);
}

/** What a wallet does with an EIP-681 link or QR code: parse it and send the token transfer it names. */
async function payFromUri(anvil: Anvil, account: PrivateKeyAccount, uri: string, scale: (n: bigint) => bigint = (n) => n): Promise<Hex> {
  const req = parseEip681(uri);
  expect(req.function_name).toBe('transfer');
  expect(Number(req.chain_id)).toBe(anvil.chainId);
  const w = wallet(anvil, account);
  const hash = await w.writeContract({
    address: req.target_address as Hex,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [req.parameters!.address as Hex, scale(BigInt(req.parameters!.uint256!))],
  });
  await w.waitForTransactionReceipt({ hash });
  return hash;
}

const intentOf = async (id: string) => (await api.get(`/v1/intents/${id}`)).body.intent;
const stateOf = (id: string, want: string) => async () => {
  const i = await intentOf(id);
  return i.state === want ? i : undefined;
};
/**
 * Wait for the intent to finalize; on time-out say where it stood (its state, the transaction as the
 * node has it, the node's head and finalized tag), so a failure under load shows which side stalled.
 */
async function finalized(anvil: Anvil, id: string, hash: string | null, ms = CHAIN_MS) {
  try {
    return await waitFor(stateOf(id, 'finalized'), ms, 'finalized');
  } catch (e) {
    const i = await intentOf(id).catch(() => null);
    const node = await Promise.all([
      anvil.rpc<{ number: string } | null>('eth_getBlockByNumber', ['latest', false]).catch((x) => String(x)),
      anvil.rpc<{ number: string } | null>('eth_getBlockByNumber', ['finalized', false]).catch((x) => String(x)),
      hash ? anvil.rpc<{ blockNumber: string; status: string } | null>('eth_getTransactionReceipt', [hash]).catch((x) => String(x)) : null,
      hash ? anvil.rpc<{ blockNumber: string | null } | null>('eth_getTransactionByHash', [hash]).catch((x) => String(x)) : null,
    ]);
    const [head, fin, receipt, tx] = node.map((x) => JSON.stringify(x)?.slice(0, 200));
    throw new Error(
      `${(e as Error).message}: intent ${id} is ${i?.state} (txSignature ${i?.txSignature}); node head ${head}, finalized ${fin}; receipt ${receipt}; transaction ${tx}`,
    );
  }
}
const paymentFor = (tx: string) => async () => {
  const r = await api.get('/v1/payments?limit=100');
  return (r.body.payments as any[]).find((p) => p.txSignature.toLowerCase() === tx.toLowerCase());
};

beforeAll(async () => {
  [base, tempo] = await Promise.all([startAnvil('base', ['--block-time', '0.2']), startAnvil('tempo', ['--block-time', '0.2'])]);
  usdc = await deployToken(base, { [payer.address]: 1_000_000_000n });
  const funder = ownerClient(tempo);
  await funder.waitForTransactionReceipt({
    hash: await funder.writeContract({ address: ALPHA_USD, abi: erc20Abi, functionName: 'transfer', args: [tempoPayer.address, 50_000_000n] }),
  });
  await tempo.rpc('anvil_setBalance', [tempoPayer.address, '0xffffffffffffffffffffffffffff']);
  rx = await startReceiver();
  s = await startTestServer({
    networks: {
      [BASE]: { rpc: [base.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300, tokens: { USDC: { address: usdc, decimals: 6 } } },
      [TEMPO]: { rpc: [tempo.url], pollIntervalMs: 100, rebroadcastIntervalMs: 300 },
    },
    webhooks: { allowPrivateUrls: true },
  });
  const a = await s.account({ plan: 'pro' });
  accountId = a.accountId;
  await s.setEndpoint(accountId, 'test', rx.url('/found'));
  api = s.api(a.key);
}, 120_000);

afterAll(async () => {
  await s?.stop();
  await rx?.close();
  await Promise.all([base?.stop(), tempo?.stop()]);
});

async function create(body: Record<string, unknown>) {
  const r = await api.post('/v1/intents', { chain: BASE, token: 'USDC', ...body });
  expect(r.status).toBe(201);
  return r.body.intent;
}

const newRequestor = () => privateKeyToAccount(generatePrivateKey()).address;

// Several chain waits in one test: room for each of them at its deadline.
describe('EVM payments found on chain', { timeout: 4 * CHAIN_MS }, () => {
  it('every intent carries an EIP-681 paymentUri and no solanaReference', async () => {
    const requestor = newRequestor();
    const i = await create({ amount: '12.34', requestor });
    expect(i.paymentUri).toBe(`ethereum:${usdc}@84532/transfer?address=${requestor}&uint256=12340000`);
    expect(i.solanaReference).toBeNull();
    expect(i.latePayment).toBeNull();
  });

  it('a wallet pays from paymentUri alone, no build, no submit: detected, finalized, fulfiller = sender, events in order', async () => {
    const requestor = newRequestor();
    const intent = await create({ amount: '7.25', requestor });
    const hash = await payFromUri(base, payer, intent.paymentUri);
    const fin = await finalized(base, intent.id, hash);
    expect(fin.txSignature).toBe(hash);
    expect(fin.fulfiller).toBe(payer.address);
    expect(fin.confirmedAt).not.toBeNull();
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    const hooks = await waitFor(() => {
      const mine = rx.requests.map((h) => JSON.parse(h.body)).filter((e) => e.data.intent?.id === intent.id);
      return mine.length >= 4 && mine;
    }, CHAIN_MS, 'webhooks');
    expect(hooks.map((e) => e.type)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    const payment = await waitFor(paymentFor(hash), CHAIN_MS, 'payment');
    expect(payment).toMatchObject({
      chain: BASE, token: 'USDC', tokenAddress: usdc, amount: '7.25', amountBaseUnits: '7250000', from: payer.address,
      to: requestor, intentId: intent.id, status: 'matched', reason: null, livemode: false,
    });
    expect((await api.get(`/v1/payments/${payment.id}`)).body.payment).toEqual(payment);
  });

  it('a built transaction sent straight to the node (never submitted) is detected', async () => {
    const requestor = newRequestor();
    const intent = await create({ amount: '3.5', requestor });
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    expect(built.status).toBe(200);
    const signed = await signBlob(payer, built.body.transaction.blob);
    const hash = await base.rpc<string>('eth_sendRawTransaction', [b64ToHex(signed)]);
    const fin = await finalized(base, intent.id, hash);
    expect(fin.txSignature).toBe(hash);
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  });

  it('Tempo: a wallet pays AlphaUSD from paymentUri alone and the intent finalizes', async () => {
    const requestor = newRequestor();
    const r = await api.post('/v1/intents', { chain: TEMPO, token: 'AlphaUSD', amount: '2.5', requestor });
    expect(r.status).toBe(201);
    expect(r.body.intent.paymentUri).toBe(`ethereum:${ALPHA_USD}@42431/transfer?address=${requestor}&uint256=2500000`);
    const hash = await payFromUri(tempo, tempoPayer, r.body.intent.paymentUri);
    const fin = await finalized(tempo, r.body.intent.id, hash);
    expect(fin.txSignature).toBe(hash);
    expect(fin.fulfiller).toBe(tempoPayer.address);
  });

  it('Tempo: a built transaction sent straight to the node (never submitted) is detected', async () => {
    const requestor = newRequestor();
    const r = await api.post('/v1/intents', { chain: TEMPO, token: 'AlphaUSD', amount: '1.25', requestor });
    const built = await api.post(`/v1/intents/${r.body.intent.id}/build`, { fulfiller: tempoPayer.address });
    expect(built.status).toBe(200);
    const hash = await tempo.rpc<string>('eth_sendRawTransaction', [b64ToHex(await signBlob(tempoPayer, built.body.transaction.blob))]);
    const fin = await finalized(tempo, r.body.intent.id, hash);
    expect(fin.txSignature).toBe(hash);
    expect(await eventTypes(api, r.body.intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  });

  it('underpaid and overpaid: unmatched amount_mismatch, the intent untouched, payment.unmatched delivered', async () => {
    for (const [scale, label] of [[(n: bigint) => n - 1n, 'under'], [(n: bigint) => n * 2n, 'over']] as const) {
      const requestor = newRequestor();
      const intent = await create({ amount: '1.5', requestor });
      const hash = await payFromUri(base, payer, intent.paymentUri, scale);
      const payment = await waitFor(paymentFor(hash), CHAIN_MS, `${label}paid payment`);
      expect(payment).toMatchObject({ status: 'unmatched', reason: 'amount_mismatch', intentId: intent.id, to: requestor });
      expect(BigInt(payment.amountBaseUnits)).toBe(scale(1_500_000n));
      const now = await intentOf(intent.id);
      expect(now.state).toBe('created');
      expect(now.updatedAt).toBe(intent.updatedAt);
      const hook = await waitFor(
        () => rx.requests.map((h) => JSON.parse(h.body)).find((e) => e.type === 'payment.unmatched' && e.data.payment.id === payment.id),
        CHAIN_MS,
        'payment.unmatched webhook',
      );
      expect(hook.data.payment).toEqual(payment);
      const ev = await api.get(`/v1/events/${hook.eventId}`);
      expect(ev.status).toBe(200);
      expect(ev.body.data.payment.reason).toBe('amount_mismatch');
    }
  });

  it('two open intents with the same requestor and amount and no fulfiller: ambiguous, neither moves; a submit by txSignature settles one', async () => {
    const requestor = newRequestor();
    const a = await create({ amount: '4', requestor });
    const b = await create({ amount: '4', requestor });
    const hash = await payFromUri(base, payer, a.paymentUri);
    const payment = await waitFor(paymentFor(hash), CHAIN_MS, 'payment');
    expect(payment).toMatchObject({ status: 'unmatched', reason: 'ambiguous', intentId: null });
    // An event that names no intent is still in the event log and delivered.
    const ev = await waitFor(
      async () => ((await api.get('/v1/events?limit=100')).body.events as any[]).find((e) => e.type === 'payment.unmatched' && e.data.payment.id === payment.id),
      CHAIN_MS,
      'payment.unmatched event',
    );
    expect(ev.data.payment.intentId).toBeNull();
    await waitFor(() => rx.requests.some((h) => JSON.parse(h.body).eventId === ev.eventId), CHAIN_MS, 'ambiguous webhook');
    expect((await intentOf(a.id)).state).toBe('created');
    expect((await intentOf(b.id)).state).toBe('created');
    // The merchant learns which one it was (the wallet's hash) and settles it by txSignature.
    const sub = await api.post(`/v1/intents/${b.id}/submit`, { txSignature: hash });
    expect(sub.status).toBe(200);
    const fin = await waitFor(stateOf(b.id, 'finalized'), CHAIN_MS, 'finalized');
    expect(fin.txSignature).toBe(hash);
    expect((await intentOf(a.id)).state).toBe('created');
    const settled = await waitFor(async () => {
      const p = (await api.get(`/v1/payments/${payment.id}`)).body.payment;
      return p.status === 'matched' && p;
    }, CHAIN_MS, 'ledger settled');
    expect(settled).toMatchObject({ reason: null, intentId: b.id });
  });

  it('an intent with a fulfiller is paid only by that fulfiller; another sender finds no open intent', async () => {
    const requestor = newRequestor();
    const stranger = privateKeyToAccount(DEV_KEYS[3]);
    const owner = ownerClient(base);
    await owner.waitForTransactionReceipt({ hash: await owner.writeContract({ address: usdc, abi: tokenAbi(), functionName: 'mint', args: [stranger.address, 10_000_000n] }) });
    const intent = await create({ amount: '2', requestor, fulfiller: payer.address });
    const hash = await payFromUri(base, stranger, intent.paymentUri);
    const payment = await waitFor(paymentFor(hash), CHAIN_MS, 'payment');
    expect(payment).toMatchObject({ status: 'unmatched', reason: 'no_open_intent', from: stranger.address });
    expect((await intentOf(intent.id)).state).toBe('created');
  });

  it('a second transfer for an intent already paid: unmatched duplicate naming the intent, nothing moves', async () => {
    const requestor = newRequestor();
    const intent = await create({ amount: '5', requestor });
    const first = await payFromUri(base, payer, intent.paymentUri);
    const fin = await waitFor(stateOf(intent.id, 'finalized'), CHAIN_MS, 'finalized');
    expect(fin.txSignature).toBe(first);
    const second = await payFromUri(base, payer, intent.paymentUri);
    const payment = await waitFor(paymentFor(second), CHAIN_MS, 'duplicate payment');
    expect(payment).toMatchObject({ status: 'unmatched', reason: 'duplicate', intentId: intent.id, amount: '5' });
    const now = await intentOf(intent.id);
    expect(now.txSignature).toBe(first);
    expect(now.updatedAt).toBe(fin.updatedAt);
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  });

  it("the requestor's transfer to itself pays nothing: no record, the intent stays open and the payer's later transfer pays it", async () => {
    const self = privateKeyToAccount(generatePrivateKey());
    await base.rpc('anvil_setBalance', [self.address, '0xffffffffffffffffffff']);
    const owner = ownerClient(base);
    await owner.waitForTransactionReceipt({ hash: await owner.writeContract({ address: usdc, abi: tokenAbi(), functionName: 'mint', args: [self.address, 10_000_000n] }) });
    // No fulfiller: before the fix, an exact self-transfer was the one open match and confirmed it.
    const intent = await create({ amount: '2.5', requestor: self.address });
    const own = await payFromUri(base, self, intent.paymentUri);
    // The payer's transfer lands in a later block, so the detector reads the self-transfer first.
    const paid = await payFromUri(base, payer, intent.paymentUri);
    const fin = await finalized(base, intent.id, paid);
    expect(fin.txSignature).toBe(paid);
    expect(fin.fulfiller).toBe(payer.address);
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
    await waitFor(paymentFor(paid), CHAIN_MS, 'payment');
    const all = (await api.get('/v1/payments?limit=100')).body.payments as any[];
    expect(all.filter((p) => p.txSignature.toLowerCase() === own.toLowerCase())).toEqual([]);
    // (The mint to it, before the intent existed, is in the ledger as no_open_intent: user9 finding 26.)
    expect(all.filter((p) => p.from === self.address)).toEqual([]);
    expect(all.find((p) => p.txSignature === paid)).toMatchObject({ from: payer.address, to: self.address, status: 'matched', intentId: intent.id });
    expect(rx.requests.map((h) => JSON.parse(h.body)).filter((e) => e.type === 'payment.unmatched' && e.data.payment.from === self.address)).toEqual([]);
  });

  it('paid after expiry: latePayment, intent.late_payment, still expired, refund for the late amount to the sender', async () => {
    const requestor = newRequestor();
    const intent = await create({ amount: '6', requestor });
    const sim = await api.post(`/v1/test/intents/${intent.id}/simulate`, { targetState: 'expired' });
    expect(sim.body.intent.state).toBe('expired');
    const hash = await payFromUri(base, payer, intent.paymentUri);
    const payment = await waitFor(paymentFor(hash), CHAIN_MS, 'payment');
    expect(payment).toMatchObject({ status: 'late', reason: 'intent_closed', intentId: intent.id });
    const late = await intentOf(intent.id);
    expect(late.state).toBe('expired');
    expect(late.latePayment).toMatchObject({ txSignature: hash, amount: '6', amountBaseUnits: '6000000', from: payer.address });
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.expired', 'intent.late_payment']);
    const hook = await waitFor(
      () => rx.requests.map((h) => JSON.parse(h.body)).find((e) => e.type === 'intent.late_payment' && e.data.intent.id === intent.id),
      CHAIN_MS,
      'late payment webhook',
    );
    expect(hook.data.intent.latePayment.txSignature).toBe(hash);
    const refund = await api.post(`/v1/intents/${intent.id}/refund`);
    expect(refund.status).toBe(200);
    expect(refund.body.intent).toMatchObject({ requestor: payer.address, amountBaseUnits: '6000000', refundOf: intent.id, fulfiller: requestor });
    expect((await intentOf(intent.id)).refundedBy).toBe(refund.body.intent.id);
  });

  it('one transaction seen by submit and by the log scan at once: one payment, one set of events', async () => {
    const requestor = newRequestor();
    const intent = await create({ amount: '9', requestor });
    const built = await api.post(`/v1/intents/${intent.id}/build`, { fulfiller: payer.address });
    const signed = await signBlob(payer, built.body.transaction.blob);
    // The node gets it first (the log scan may find it while submit is still running), then submit.
    const hash = await base.rpc<string>('eth_sendRawTransaction', [b64ToHex(signed)]);
    const sub = await api.post(`/v1/intents/${intent.id}/submit`, { signedTransaction: signed });
    expect(sub.status).toBe(200);
    expect(sub.body.txSignature).toBe(hash);
    await finalized(base, intent.id, hash);
    await waitFor(paymentFor(hash), CHAIN_MS, 'payment');
    const all = (await api.get('/v1/payments?limit=100')).body.payments.filter((p: any) => p.txSignature === hash);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ status: 'matched', intentId: intent.id });
    expect(await eventTypes(api, intent.id)).toEqual(['intent.created', 'intent.pending', 'intent.confirmed', 'intent.finalized']);
  });
});

describe('GET /v1/payments', () => {
  it('pages newest first, filters by status, and hides other accounts', async () => {
    const all = (await api.get('/v1/payments?limit=100')).body;
    expect(all.payments.length).toBeGreaterThanOrEqual(5);
    const first = await api.get('/v1/payments?limit=2');
    expect(first.body.payments).toEqual(all.payments.slice(0, 2));
    expect(first.body.hasMore).toBe(true);
    const next = await api.get(`/v1/payments?limit=2&starting_after=${first.body.payments[1].id}`);
    expect(next.body.payments).toEqual(all.payments.slice(2, 4));
    const unmatched = (await api.get('/v1/payments?status=unmatched&limit=100')).body.payments;
    expect(unmatched.length).toBeGreaterThan(0);
    expect(unmatched.every((p: any) => p.status === 'unmatched')).toBe(true);
    expectError(await api.get('/v1/payments?status=lost'), 400, 'request.invalid_param', 'status');
    expectError(await api.get('/v1/payments?limit=0'), 400, 'request.invalid_param', 'limit');
    expectError(await api.get('/v1/payments?starting_after=pay_nope'), 400, 'request.invalid_param', 'starting_after');

    const other = s.api((await s.account({ plan: 'pro' })).key);
    expect((await other.get('/v1/payments')).body).toEqual({ payments: [], hasMore: false });
    expectError(await other.get(`/v1/payments/${all.payments[0].id}`), 404, 'payment.not_found');
    const live = s.api(await s.key(accountId, 'live'));
    expectError(await live.get(`/v1/payments/${all.payments[0].id}`), 404, 'payment.not_found');
  });
});
