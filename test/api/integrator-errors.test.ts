// Issue 17, errors an integrator meets first: a refund whose intent has no fulfiller is a missing
// field (422 intent.fulfiller_required, param fulfiller, a message that says how to set one),
// not a state conflict; errors for enum fields list the allowed values in the message.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { INTENT_STATES } from '../../src/domain/intent';
import { PAYMENT_STATUSES } from '../../src/domain/payment';
import { expectError } from '../support/api';
import { type ApiClient, BASE_MAINNET, BASE_SEPOLIA, EVM_ADDR2, intentBody, startServerWithKey, type TestServer } from '../support/server';

let s: TestServer;
let api: ApiClient;
beforeAll(async () => {
  ({ s, api } = await startServerWithKey({ plan: 'pro' }));
});
afterAll(async () => s.stop());

async function confirmed(over: Record<string, unknown> = {}): Promise<string> {
  const i = (await api.post('/v1/intents', intentBody(over))).body.intent;
  expect((await api.post(`/v1/test/intents/${i.id}/simulate`, { targetState: 'confirmed' })).status).toBe(200);
  return i.id;
}

it('refund of a confirmed intent with no fulfiller: 422 intent.fulfiller_required, param fulfiller, how to set one', async () => {
  const id = await confirmed();
  const e = expectError(await api.post(`/v1/intents/${id}/refund`), 422, 'intent.fulfiller_required', 'fulfiller');
  expect(e.message).toContain(id);
  expect(e.message).toMatch(/"fulfiller"/);
  expect(e.message).toMatch(/build or submit/);
  expect(e.details).toEqual({ intent_id: id });
  // Nothing was written: the intent is not marked refunded.
  expect((await api.get(`/v1/intents/${id}`)).body.intent.refundedBy).toBeNull();
});

it('the same flow with a fulfiller set at create refunds to it', async () => {
  const id = await confirmed({ fulfiller: EVM_ADDR2 });
  const r = await api.post(`/v1/intents/${id}/refund`);
  expect(r.status).toBe(200);
  expect(r.body.intent.requestor).toBe(EVM_ADDR2);
  expect(r.body.intent.refundOf).toBe(id);
});

const listsAll = (message: string, values: readonly string[]) => {
  for (const v of values) expect(message, message).toContain(v);
};

it('enum fields: the message lists the allowed values and param names the field', async () => {
  const chains = ['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', BASE_SEPOLIA, 'eip155:42431'];
  listsAll(expectError(await api.post('/v1/intents', intentBody({ chain: 'eip155:1' })), 422, 'chain.unsupported', 'chain').message, chains);
  listsAll(expectError(await api.post('/v1/intents', intentBody({ chain: BASE_MAINNET })), 422, 'chain.unavailable_in_mode', 'chain').message, chains);
  listsAll(expectError(await api.post('/v1/intents', intentBody({ token: 'constructor' })), 422, 'token.unavailable_on_chain', 'token').message, ['USDC']);
  listsAll(expectError(await api.get('/v1/intents?state=paid'), 400, 'request.invalid_param', 'state').message, INTENT_STATES);
  listsAll(expectError(await api.get('/v1/payments?status=paid'), 400, 'request.invalid_param', 'status').message, PAYMENT_STATUSES);
  const i = (await api.post('/v1/intents', intentBody())).body.intent;
  const sim = `/v1/test/intents/${i.id}/simulate`;
  const targets = ['confirmed', 'finalized', 'failed', 'expired', 'dropped'];
  listsAll(expectError(await api.post(sim, { targetState: 'paid' }), 400, 'request.invalid_param', 'targetState').message, targets);
  listsAll(expectError(await api.post(sim, { targetState: 7 }), 400, 'request.invalid_param', 'targetState').message, targets);
  listsAll(
    expectError(await api.post(sim, { targetState: 'failed', failureReason: 'gas' }), 400, 'request.invalid_param', 'failureReason').message,
    ['insufficient_balance', 'revert', 'slippage'],
  );
  expect(expectError(await api.post('/v1/intents', intentBody({ direction: 'send' })), 400, 'request.invalid_param', 'direction').message).toContain('request');
});
