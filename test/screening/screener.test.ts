// The screener against the real snapshot, config extras, a listDir override and a real local
// HTTP server standing in for the Chainalysis-compatible provider.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.types';
import { createScreener } from '../../src/screening/screener';
import { refusal } from '../support/errors';

const SOL_LISTED = '42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi';
const EVM_LISTED_MIXED = '0x983a81ca6FB1e441266D2FbcB7D8E530AC2E05A2'; // as in sanctioned_addresses_ETH.txt
const EVM_CLEAN = '0x1111111111111111111111111111111111111111';
const SOL_CLEAN = 'So11111111111111111111111111111111111111112';
const PROVIDER_MATCH = '0x2222222222222222222222222222222222222222';

const noScreening: Config['screening'] = { extraAddresses: [], extraAddressesFile: null, listDir: null, provider: null };
const cfg = (over: Partial<Config['screening']> = {}) => ({ ...noScreening, ...over });

// The provider: records every request; answers by address.
const seen: Array<{ path: string; key: string | null }> = [];
const provider = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const path = new URL(req.url).pathname;
    seen.push({ path, key: req.headers.get('x-api-key') });
    const address = decodeURIComponent(path.split('/').pop() ?? '');
    if (address === PROVIDER_MATCH) return Response.json({ identifications: [{ category: 'sanctions', name: 'SANCTIONS: OFAC SDN' }] });
    if (address === 'broken') return new Response('oops', { status: 500 });
    if (address === 'forbidden') return new Response('no', { status: 403 });
    if (address === 'garbage') return new Response('<html>');
    if (address === 'slow') await Bun.sleep(1500);
    return Response.json({ identifications: [] });
  },
});
afterAll(() => provider.stop(true));
const providerCfg = (url = `http://127.0.0.1:${provider.port}/`) => ({ url, apiKey: 'test-key', timeoutMs: 300 });


const evm = (address: string, param = 'fulfiller') => ({ address, param, family: 'evm' as const });
const sol = (address: string, param = 'requestor') => ({ address, param, family: 'solana' as const });

describe('createScreener: local lists', () => {
  const s = createScreener(cfg());

  it('carries the embedded snapshot', () => {
    expect(s.size()).toEqual({ evm: 81, solana: 1 });
  });

  it('matches a listed EVM address in mixed case and lowercase', async () => {
    for (const address of [EVM_LISTED_MIXED, EVM_LISTED_MIXED.toLowerCase(), EVM_LISTED_MIXED.toUpperCase().replace('0X', '0x')]) {
      const e = await refusal(s.screen([evm(EVM_CLEAN, 'requestor'), evm(address)]));
      expect(e.code).toBe('address.sanctions_match');
      expect(e.param).toBe('fulfiller');
      expect(e.details).toEqual({ address });
      expect(e.message).toContain('is on a sanctions list');
    }
  });

  it('matches the Solana address exactly, and only exactly', async () => {
    const e = await refusal(s.screen([sol(SOL_LISTED)]));
    expect(e).toMatchObject({ code: 'address.sanctions_match', param: 'requestor', details: { address: SOL_LISTED } });
    await expect(s.screen([sol(SOL_LISTED.toLowerCase())])).resolves.toBeUndefined();
  });

  it('does not cross families: a Solana-listed string screened as EVM is not matched', async () => {
    await expect(s.screen([evm(SOL_LISTED)])).resolves.toBeUndefined();
  });

  it('passes clean addresses and empty input', async () => {
    await expect(s.screen([evm(EVM_CLEAN), sol(SOL_CLEAN)])).resolves.toBeUndefined();
    await expect(s.screen([])).resolves.toBeUndefined();
  });

  it('adds extraAddresses and extraAddressesFile to the built-in list', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'screening-'));
    const file = join(dir, 'extra.txt');
    writeFileSync(file, `# our own blocklist\n${SOL_CLEAN}\n\n0x3333333333333333333333333333333333333333 # chargeback fraud\n`);
    const x = createScreener(cfg({ extraAddresses: ['0xAAAAaaaaAAAAaaaaAAAAaaaaAAAAaaaaAAAAaaaa'], extraAddressesFile: file }));
    expect(x.size()).toEqual({ evm: 83, solana: 2 });
    await expect(x.screen([evm('0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')])).rejects.toMatchObject({ code: 'address.sanctions_match' });
    await expect(x.screen([evm('0x3333333333333333333333333333333333333333')])).rejects.toMatchObject({ code: 'address.sanctions_match' });
    await expect(x.screen([sol(SOL_CLEAN)])).rejects.toMatchObject({ code: 'address.sanctions_match' });
    await expect(x.screen([evm(EVM_LISTED_MIXED)])).rejects.toMatchObject({ code: 'address.sanctions_match' });
  });

  it('refuses to start when the extra file is missing', () => {
    expect(() => createScreener(cfg({ extraAddressesFile: '/nonexistent/extra.txt' }))).toThrow();
  });

  it('replaces the built-in list with listDir, read once at creation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sanctions-'));
    writeFileSync(join(dir, 'sanctioned_addresses_ETH.txt'), `${EVM_CLEAN}\n`);
    writeFileSync(join(dir, 'sanctioned_addresses_SOL.txt'), `${SOL_CLEAN}\n`);
    writeFileSync(join(dir, 'notes.txt'), '0x4444444444444444444444444444444444444444\n'); // not a list file
    const x = createScreener(cfg({ listDir: dir }));
    expect(x.size()).toEqual({ evm: 1, solana: 1 });
    await expect(x.screen([evm(EVM_CLEAN.toUpperCase().replace('0X', '0x'))])).rejects.toMatchObject({ code: 'address.sanctions_match' });
    await expect(x.screen([sol(SOL_CLEAN)])).rejects.toMatchObject({ code: 'address.sanctions_match' });
    await expect(x.screen([evm(EVM_LISTED_MIXED), sol(SOL_LISTED)])).resolves.toBeUndefined(); // built-in replaced
    await expect(x.screen([evm('0x4444444444444444444444444444444444444444')])).resolves.toBeUndefined();
    writeFileSync(join(dir, 'sanctioned_addresses_ETH.txt'), '0x5555555555555555555555555555555555555555\n');
    await expect(x.screen([evm(EVM_CLEAN)])).rejects.toMatchObject({ code: 'address.sanctions_match' });
  });

  it('refuses a listDir without list files', () => {
    expect(() => createScreener(cfg({ listDir: mkdtempSync(join(tmpdir(), 'empty-')) }))).toThrow(/no sanctioned_addresses/);
  });
});

describe('createScreener: remote provider', () => {
  it('queries every address in parallel with the API key and passes when all are clear', async () => {
    seen.length = 0;
    const s = createScreener(cfg({ provider: providerCfg() }));
    await expect(s.screen([evm(EVM_CLEAN), sol(SOL_CLEAN)])).resolves.toBeUndefined();
    expect(seen.map((r) => r.path).sort()).toEqual([`/api/v1/address/${EVM_CLEAN}`, `/api/v1/address/${SOL_CLEAN}`].sort());
    expect(seen.every((r) => r.key === 'test-key')).toBe(true);
  });

  it('runs the queries concurrently, not one after another', async () => {
    const s = createScreener(cfg({ provider: { ...providerCfg(), timeoutMs: 5000 } }));
    const started = Date.now();
    await s.screen([evm('slow', 'a'), evm('slow', 'b'), evm('slow', 'c')]);
    expect(Date.now() - started).toBeLessThan(2 * 1500);
  });

  it('refuses a provider match with address.sanctions_match', async () => {
    const s = createScreener(cfg({ provider: providerCfg() }));
    const e = await refusal(s.screen([evm(EVM_CLEAN, 'requestor'), evm(PROVIDER_MATCH, 'fulfiller')]));
    expect(e).toMatchObject({ code: 'address.sanctions_match', param: 'fulfiller', details: { address: PROVIDER_MATCH } });
  });

  it('checks the local list first, without any network call', async () => {
    seen.length = 0;
    const s = createScreener(cfg({ provider: providerCfg() }));
    await expect(s.screen([evm(EVM_CLEAN), evm(EVM_LISTED_MIXED)])).rejects.toMatchObject({ code: 'address.sanctions_match' });
    expect(seen).toHaveLength(0);
  });

  it.each([
    ['a 500', 'broken'],
    ['a 403', 'forbidden'],
    ['a body that is not JSON', 'garbage'],
    ['a timeout', 'slow'],
  ])('answers %s with screening.unavailable and retry_after', async (_, address) => {
    const s = createScreener(cfg({ provider: providerCfg() }));
    const e = await refusal(s.screen([evm(EVM_CLEAN), evm(address)]));
    expect(e.code).toBe('screening.unavailable');
    expect(e.details).toEqual({ retry_after: 5 });
    expect(String((e.cause as Error).message)).not.toContain('test-key');
  });

  it('answers an unreachable provider with screening.unavailable', async () => {
    const dead = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
    const url = `http://127.0.0.1:${dead.port}`;
    await dead.stop(true);
    const s = createScreener(cfg({ provider: providerCfg(url) }));
    const e = await refusal(s.screen([sol(SOL_CLEAN)]));
    expect(e).toMatchObject({ code: 'screening.unavailable', details: { retry_after: 5 } });
    expect(e.message).not.toContain(url);
  });

  it('prefers a match over an outage in the same request', async () => {
    const s = createScreener(cfg({ provider: providerCfg() }));
    await expect(s.screen([evm('broken'), evm(PROVIDER_MATCH)])).rejects.toMatchObject({ code: 'address.sanctions_match' });
  });
});
