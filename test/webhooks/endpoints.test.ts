// set-endpoint, rotate-secret and the URL policy (SSRF refusals at set-endpoint time).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rotateSecret } from '../../src/webhooks/rotate-secret';
import { setEndpoint } from '../../src/webhooks/set-endpoint';
import { classifyAddress, type Lookup } from '../../src/webhooks/url-policy';
import { startReceiver, type Receiver } from '../support/receiver';
import { testConfig, services } from './factory';
import { accountIn, neutralDb, type NeutralDb } from './neutral-db';
import { refusal } from '../support/errors';
import { withRawSql } from '../support/raw-sql';

let rx: Receiver;
let db: NeutralDb;
let acct: string;
beforeAll(() => void (rx = startReceiver()));
afterAll(() => rx.close());
beforeEach(async () => {
  db = await neutralDb();
  acct = await accountIn(db);
});
afterEach(async () => db.dispose());

const cfg = testConfig();
const fakeDns =
  (answers: Record<string, string[]>): Lookup =>
  async (h) => {
    const a = answers[h];
    if (!a) throw new Error(`ENOTFOUND ${h}`);
    return a;
  };


describe('setEndpoint', () => {
  it('creates a whsec_ secret of 32 random bytes on first set and keeps it when the URL changes', async () => {
    const first = await setEndpoint(services(db, cfg), { accountId: acct, mode: 'test' }, { url: rx.url('/a') });
    expect(first.url).toBe(rx.url('/a'));
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(first.secret.slice(6), 'base64')).toHaveLength(32);
    const second = await setEndpoint(services(db, cfg), { accountId: acct, mode: 'test' }, { url: rx.url('/b') });
    expect(second).toEqual({ url: rx.url('/b'), secret: first.secret });
    // The other mode is a separate endpoint with its own secret.
    const live = await setEndpoint(services(db, cfg, {
      lookup: fakeDns({ 'hooks.example.com': ['93.184.215.14'] }),
    }), { accountId: acct, mode: 'live' }, { url: 'https://hooks.example.com/x' });
    expect(live.secret).not.toBe(first.secret);
  });

  it('refuses an unknown account', async () => {
    const e = await refusal(setEndpoint(services(db, cfg), { accountId: 'acct_nope', mode: 'test' }, { url: rx.url() }));
    expect(e.code).toBe('account.not_found');
  });

  it('accepts http://localhost in test mode', async () => {
    const r = await setEndpoint(services(db, cfg), { accountId: acct, mode: 'test' }, { url: `http://localhost:${rx.port}/hooks` });
    expect(r.url).toBe(`http://localhost:${rx.port}/hooks`);
  });

  const liveRefusals: Array<[string, string, Record<string, string[]>?]> = [
    ['http scheme', `http://hooks.example.com/x`, { 'hooks.example.com': ['93.184.215.14'] }],
    ['loopback literal', `https://127.0.0.1:${443}/x`],
    ['private 10/8', 'https://10.1.2.3/x'],
    ['private 192.168/16', 'https://192.168.1.10/x'],
    ['CGNAT', 'https://100.64.0.1/x'],
    ['cloud metadata', 'https://169.254.169.254/latest/meta-data'],
    ['IPv6 loopback', 'https://[::1]/x'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/x'],
    ['IPv6 unique local', 'https://[fd00:ec2::254]/x'],
    ['decimal-encoded loopback', 'https://2130706433/x'],
    ['unspecified', 'https://0.0.0.0/x'],
    ['a name with one private address among public ones', 'https://mixed.example.com/x', { 'mixed.example.com': ['93.184.215.14', '10.0.0.7'] }],
    ['a name that does not resolve', 'https://nxdomain.example.com/x', {}],
    ['not a URL', 'hooks.example.com'],
    ['ftp', 'ftp://hooks.example.com/x', { 'hooks.example.com': ['93.184.215.14'] }],
  ];
  for (const [what, url, dns] of liveRefusals) {
    it(`refuses a live endpoint: ${what}`, async () => {
      const e = await refusal(setEndpoint(services(db, cfg, { lookup: fakeDns(dns ?? {}) }), { accountId: acct, mode: 'live' }, { url }));
      expect(e.code).toBe('webhook.invalid_endpoint');
      expect(e.param).toBe('url');
    });
  }

  it('refuses a live endpoint whose host resolves to loopback through the real resolver (localhost)', async () => {
    const e = await refusal(setEndpoint(services(db, cfg), { accountId: acct, mode: 'live' }, { url: `https://localhost:${rx.port}/hooks` }));
    expect(e.code).toBe('webhook.invalid_endpoint');
    expect(String(e.details.reason)).toMatch(/loopback/);
  });

  it('refuses link-local (cloud metadata) even in test mode', async () => {
    const e = await refusal(setEndpoint(services(db, cfg), { accountId: acct, mode: 'test' }, { url: 'http://169.254.169.254/latest' }));
    expect(e.code).toBe('webhook.invalid_endpoint');
  });

  it('accepts a live https endpoint resolving only to public addresses', async () => {
    const r = await setEndpoint(services(db, cfg, {
      lookup: fakeDns({ 'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] }),
    }), { accountId: acct, mode: 'live' }, { url: 'https://hooks.example.com' });
    expect(r.url).toBe('https://hooks.example.com/');
  });

  it('allowPrivateUrls lifts the address check but not the https rule', async () => {
    const open = testConfig({ allowPrivateUrls: true });
    const r = await setEndpoint(services(db, open), { accountId: acct, mode: 'live' }, { url: `https://127.0.0.1:${rx.port}/hooks` });
    expect(r.url).toBe(`https://127.0.0.1:${rx.port}/hooks`);
    const e = await refusal(setEndpoint(services(db, open), { accountId: acct, mode: 'live' }, { url: rx.url() }));
    expect(e.code).toBe('webhook.invalid_endpoint');
  });
});

describe('rotateSecret', () => {
  it('issues a new secret and keeps the previous one for the overlap', async () => {
    const { secret: old } = await setEndpoint(services(db, cfg), { accountId: acct, mode: 'test' }, { url: rx.url() });
    const now = 1_800_000_000_000;
    const { secret } = await rotateSecret(services(db, testConfig({ rotationOverlapSeconds: 3600 }), { now: () => now }), { accountId: acct, mode: 'test' });
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(old);
    const [row] = await withRawSql(db.db, (q) =>
      q.all<{ secret: string; prev: string; exp: number | string }>('SELECT secret, previous_secret AS prev, previous_secret_expires_at AS exp FROM webhook_endpoints'),
    );
    expect({ ...row, exp: Number(row!.exp) }).toEqual({ secret, prev: old, exp: now + 3_600_000 });
    // A later set-endpoint keeps the rotated secret.
    expect((await setEndpoint(services(db, cfg), { accountId: acct, mode: 'test' }, { url: rx.url('/c') })).secret).toBe(secret);
  });

  it('refuses when no endpoint is set, and for an unknown account', async () => {
    await expect(rotateSecret(services(db, cfg), { accountId: acct, mode: 'live' })).rejects.toMatchObject({ code: 'webhook.not_found' });
    await expect(rotateSecret(services(db, cfg), { accountId: 'acct_x', mode: 'live' })).rejects.toMatchObject({ code: 'account.not_found' });
  });
});

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'], ['172.15.255.255', 'public'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'], ['127.255.0.1', 'loopback'], ['169.254.1.1', 'link-local'], ['fe80::1', 'link-local'],
    ['::', 'unspecified'], ['::1', 'loopback'], ['fc00::1', 'private'], ['2001:4860:4860::8888', 'public'],
    ['64:ff9b::a00:1', 'private'], ['2002:7f00:1::', 'loopback'], ['::ffff:8.8.8.8', 'public'], ['224.0.0.1', 'reserved'],
    ['not-an-ip', 'invalid'],
  ])('%s is %s', (a, kind) => expect(classifyAddress(a)).toBe(kind));
});
