// Refund rules of contract section 4 through the real server: a refund that ended unpaid
// (expired, cancelled, failed) no longer blocks a new one; a live or paid one does; a refund of a
// refund is refused; concurrent refunds have one winner; `refundedBy` names the newest and
// `refunds` lists every refund, oldest first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, EVM_ADDR2, intentBody, startServerWithKey, type TestServer } from '../support/server';
import { expectError } from '../support/api';

let s: TestServer;
let api: ApiClient;
beforeAll(async () => {
  ({ s, api } = await startServerWithKey({ plan: 'pro' }));
});
afterAll(async () => {
  await s.stop();
});

const simulate = (id: string, targetState: string) => api.post(`/v1/test/intents/${id}/simulate`, { targetState });

async function paid(): Promise<any> {
  const r = await api.post('/v1/intents', intentBody({ fulfiller: EVM_ADDR2 }));
  expect(r.status).toBe(201);
  expect((await simulate(r.body.intent.id, 'confirmed')).status).toBe(200);
  return r.body.intent;
}

async function refund(id: string): Promise<any> {
  const r = await api.post(`/v1/intents/${id}/refund`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.intent;
}

const original = async (id: string) => (await api.get(`/v1/intents/${id}`)).body.intent;

describe('a refund that ended unpaid does not block the next one', () => {
  const endings: Record<string, (id: string) => Promise<unknown>> = {
    expired: (id) => simulate(id, 'expired'),
    cancelled: (id) => api.post(`/v1/intents/${id}/cancel`),
    failed: (id) => simulate(id, 'failed'),
  };
  for (const [ending, end] of Object.entries(endings)) {
    it(`${ending}: a new refund is made; refundedBy names it, refunds lists both, oldest first`, async () => {
      const o = await paid();
      const first = await refund(o.id);
      expect(((await end(first.id)) as { status: number }).status).toBe(200);
      const second = await refund(o.id);
      expect(second).toMatchObject({ state: 'created', refundOf: o.id, amount: o.amount, requestor: o.fulfiller, fulfiller: o.requestor });
      expect(second.id).not.toBe(first.id);
      expect(await original(o.id)).toMatchObject({ refundedBy: second.id, refunds: [first.id, second.id] });
      // The new one blocks in its turn.
      const e = expectError(await api.post(`/v1/intents/${o.id}/refund`), 409, 'intent.already_refunded');
      expect(e.details).toEqual({ intent_id: o.id, refunded_by: second.id });
    });
  }
});

describe('a live or paid refund blocks', () => {
  for (const steps of [[], ['confirmed'], ['confirmed', 'finalized']]) {
    it(`refund in ${steps.at(-1) ?? 'created'}: 409 intent.already_refunded`, async () => {
      const o = await paid();
      const r = await refund(o.id);
      for (const t of steps) expect((await simulate(r.id, t)).status).toBe(200);
      const e = expectError(await api.post(`/v1/intents/${o.id}/refund`), 409, 'intent.already_refunded');
      expect(e.details).toEqual({ intent_id: o.id, refunded_by: r.id });
      expect((await original(o.id)).refunds).toEqual([r.id]);
    });
  }

  it('an intent never refunded lists no refunds', async () => {
    expect(await original((await paid()).id)).toMatchObject({ refundedBy: null, refunds: [] });
  });
});

describe('a refund of a refund', () => {
  it('is 409 intent.invalid_state with details.reason refund_of_refund, whatever its state', async () => {
    const o = await paid();
    const r = await refund(o.id);
    for (const step of [null, 'confirmed', 'finalized']) {
      if (step) expect((await simulate(r.id, step)).status).toBe(200);
      const e = expectError(await api.post(`/v1/intents/${r.id}/refund`), 409, 'intent.invalid_state');
      expect(e.details).toEqual({ intent_id: r.id, current_state: step ?? 'created', reason: 'refund_of_refund', refund_of: o.id });
    }
    expect(await original(r.id)).toMatchObject({ refundedBy: null, refunds: [] });
  });
});

describe('concurrent refunds', () => {
  it('one winner, every other answer 409 intent.already_refunded; again after the winner expired', async () => {
    const o = await paid();
    const race = async () => {
      const answers = await Promise.all(Array.from({ length: 8 }, () => api.post(`/v1/intents/${o.id}/refund`)));
      const won = answers.filter((a) => a.status === 200);
      expect(won).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) expectError(a, 409, 'intent.already_refunded');
      return won[0]!.body.intent;
    };
    const first = await race();
    expect((await simulate(first.id, 'expired')).status).toBe(200);
    const second = await race();
    expect(await original(o.id)).toMatchObject({ refundedBy: second.id, refunds: [first.id, second.id] });
  });
});
