// The intent fields of contract section 11 at create, through the real server: solanaReference
// (a fresh base58 32-byte key per Solana intent, null on EVM), paymentUri, latePayment; the
// payments routes in the OpenAPI document.
import { getAddressEncoder } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '../support/api';
import { type ApiClient, EVM_ADDR, intentBody, SOL_ADDR, SOLANA_DEVNET, startServerWithKey, type TestServer } from '../support/server';

let s: TestServer;
let api: ApiClient;
beforeAll(async () => {
  ({ s, api } = await startServerWithKey({ name: 'Acme Coffee & Co' }));
});
afterAll(async () => s.stop());

describe('intent fields for payments found on chain', () => {
  it('a Solana intent gets its own reference and a Solana Pay transfer request URI labelled with the account name', async () => {
    const a = (await api.post('/v1/intents', { chain: SOLANA_DEVNET, token: 'USDC', amount: '12.5', requestor: SOL_ADDR })).body.intent;
    const b = (await api.post('/v1/intents', { chain: SOLANA_DEVNET, token: 'USDC', amount: '0.000001', requestor: SOL_ADDR })).body.intent;
    // A valid 32-byte account key (the encoder throws on anything else), different per intent.
    expect(getAddressEncoder().encode(a.solanaReference as never)).toHaveLength(32);
    expect(a.solanaReference).not.toBe(b.solanaReference);
    expect(a.paymentUri).toBe(
      `solana:${SOL_ADDR}?amount=12.5&spl-token=4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU&reference=${a.solanaReference}&label=Acme%20Coffee%20%26%20Co`,
    );
    expect(new URL(a.paymentUri).searchParams.get('label')).toBe('Acme Coffee & Co');
    // The event envelope (what webhooks carry) renders the same URI.
    const [created] = await eventsOf(api, a.id);
    expect(created!.data.intent.paymentUri).toBe(a.paymentUri);
    expect(b.paymentUri).toContain('?amount=0.000001&');
    expect(a.latePayment).toBeNull();
    expect((await api.get(`/v1/intents/${a.id}`)).body.intent).toEqual(a);
  });

  it('an EVM intent has no reference and an EIP-681 URI in base units', async () => {
    const i = (await api.post('/v1/intents', intentBody({ amount: '1.000001' }))).body.intent;
    expect(i.solanaReference).toBeNull();
    expect(i.paymentUri).toBe(`ethereum:0x036CbD53842c5426634e7929541eC2318f3dCF7e@84532/transfer?address=${EVM_ADDR}&uint256=1000001`);
  });

  it('documents the payments routes and the new fields', async () => {
    const doc = await (await fetch(`${s.url}/openapi.json`)).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/payments', '/v1/payments/{id}']));
    expect(JSON.stringify(doc)).toContain('paymentUri');
  });
});
