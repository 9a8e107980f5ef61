// Issue 13 item 6: the webhook URL policy. Credentials in URLs are refused; every address form
// is normalised before it is judged (IPv4 in IPv6: mapped, compatible, translated, NAT64, 6to4,
// Teredo, ISATAP; inet_aton forms of IPv4); cloud metadata addresses are refused in every mode,
// allowPrivateUrls included, at set-endpoint and again at send time.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setEndpoint } from '../../src/webhooks/set-endpoint';
import { sendDelivery } from '../../src/webhooks/send';
import { classifyAddress, type Lookup } from '../../src/webhooks/url-policy';
import type { Mode } from '../../src/domain/intent';
import { refusal } from '../support/errors';
import { testConfig, services } from './factory';
import { accountIn, neutralDb, type NeutralDb } from './neutral-db';

let db: NeutralDb;
let acct: string;
beforeEach(async () => {
  db = await neutralDb();
  acct = await accountIn(db);
});
afterEach(async () => db.dispose());

const dns =
  (answers: Record<string, string[]>): Lookup =>
  async (h) => {
    const a = answers[h];
    if (!a) throw new Error(`ENOTFOUND ${h}`);
    return a;
  };

const refused = async (mode: Mode, url: string, opts: { allowPrivateUrls?: boolean; lookup?: Lookup } = {}) => {
  const e = await refusal(setEndpoint(services(db, testConfig({ allowPrivateUrls: opts.allowPrivateUrls ?? false }), { lookup: opts.lookup ?? dns({}) }), { accountId: acct, mode }, { url }));
  expect(e.code, url).toBe('webhook.invalid_endpoint');
  expect(e.param).toBe('url');
  return String(e.details.reason);
};

describe('credentials in the URL', () => {
  it.each([
    ['test', 'http://user:pass@127.0.0.1:9/hooks'],
    ['test', 'http://user@localhost:9/hooks'],
    ['test', 'http://:secret@localhost:9/hooks'],
    ['live', 'https://user:pass@hooks.example.com/x'],
  ] as const)('%s mode refuses %s', async (mode, url) => {
    expect(await refused(mode, url, { lookup: dns({ 'hooks.example.com': ['93.184.215.14'] }) })).toMatch(/credentials/);
  });
});

describe('cloud metadata, in every mode', () => {
  const metadataHosts = [
    '100.100.100.200', // Alibaba
    '[fd00:ec2::254]', // AWS IMDS over IPv6
    '[fd00:ec2::23]', // AWS internal range
    '168.63.129.16', // Azure WireServer (a public address)
    '169.254.169.254',
    '169.254.170.2', // ECS task metadata
    '192.0.0.192', // Oracle
    '[::ffff:100.100.100.200]', // the same, mapped
    '[64:ff9b::6464:64c8]', // NAT64 of 100.100.100.200
    '[2002:6464:64c8::1]', // 6to4 of 100.100.100.200
    '[::6464:64c8]', // IPv4-compatible
    '1684301000', // decimal 100.100.100.200
    '0x64.0x64.0x64.0xc8', // hex
  ];

  for (const mode of ['test', 'live'] as const) {
    it.each(metadataHosts)(`${mode} mode refuses %s`, async (host) => {
      const scheme = mode === 'live' ? 'https' : 'http';
      expect(await refused(mode, `${scheme}://${host}/latest/meta-data`)).toMatch(/metadata|link-local/);
    });
  }

  it('allowPrivateUrls does not open metadata addresses (it opens private ones)', async () => {
    for (const host of ['100.100.100.200', '[fd00:ec2::254]', '169.254.169.254', '[::ffff:a9fe:a9fe]']) {
      expect(await refused('test', `http://${host}/`, { allowPrivateUrls: true })).toMatch(/metadata/);
    }
    const ok = await setEndpoint(services(db, testConfig({ allowPrivateUrls: true })), { accountId: acct, mode: 'live' }, { url: 'https://10.0.0.5/hooks' });
    expect(ok.url).toBe('https://10.0.0.5/hooks');
  });

  it('a name that resolves to a metadata address is refused in test mode too', async () => {
    const lookup = dns({ 'metadata.internal.example': ['100.100.100.200'], 'v6.internal.example': ['fd00:ec2::254'] });
    expect(await refused('test', 'http://metadata.internal.example/', { lookup })).toMatch(/metadata/);
    expect(await refused('test', 'http://v6.internal.example/', { lookup })).toMatch(/metadata/);
  });

  it('is refused again at send time (DNS may change after set-endpoint)', async () => {
    const out = await sendDelivery({
      url: 'http://rebind.example/hooks',
      body: '{}',
      headers: {},
      timeoutMs: 1000,
      policy: { mode: 'test', allowPrivateUrls: true },
      lookup: dns({ 'rebind.example': ['100.100.100.200'] }),
      fetch: () => {
        throw new Error('must not connect');
      },
    });
    expect(out).toMatchObject({ ok: false, status: null });
    expect(out.error).toMatch(/refused: .*metadata/);
  });
});

describe('every address form is normalised before the check (live mode)', () => {
  it.each([
    // IPv4 embedded in IPv6
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['[0:0:0:0:0:ffff:10.0.0.1]', 'private'],
    ['[::ffff:0:10.0.0.1]', 'private'], // IPv4-translated
    ['[::ffff:0:a00:1]', 'private'],
    ['[::10.0.0.1]', 'private'], // IPv4-compatible
    ['[64:ff9b::10.0.0.1]', 'private'], // NAT64
    ['[64:ff9b::7f00:1]', 'loopback'],
    ['[64:ff9b:1::a00:1]', 'reserved'], // local-use NAT64
    ['[2002:a00:1::]', 'private'], // 6to4
    ['[2002:7f00:1::1]', 'loopback'],
    ['[2001:0:4136:e378:8000:63bf:f5ff:fffe]', 'private'], // Teredo, client 10.0.0.1 (inverted)
    ['[fe80::5efe:a00:1]', 'private'], // ISATAP: the embedded 10.0.0.1 (link-local prefix too)
    ['[2001:db8::5efe:a00:1]', 'private'], // ISATAP on a public-looking prefix
  ])('%s', async (host, kind) => {
    expect(await refused('live', `https://${host}/x`)).toContain(kind);
  });

  it.each([
    ['2130706433', 'loopback'], // decimal
    ['0177.0.0.1', 'loopback'], // octal
    ['0x7f.0.0.1', 'loopback'], // hex
    ['0x7f000001', 'loopback'],
    ['127.1', 'loopback'], // short
    ['10.1', 'private'],
    ['0xa9.0376.0xa9fe', 'link-local'], // 169.254.169.254 mixed: judged as metadata or link-local
  ])('URL host %s', async (host, kind) => {
    expect(await refused('live', `https://${host}/x`)).toMatch(new RegExp(`${kind}|metadata`));
  });

  it.each([
    ['0177.0.0.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['012.0.0.1', 'private'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['1.2.3.4.5', 'invalid'],
    ['256.1.1.1', 'invalid'],
    ['1::2::3', 'invalid'],
    ['::ffff:1.2.3.04', 'invalid'],
    ['93.184.215.14', 'public'],
    ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['2002:808:808::', 'public'],
  ])('a resolver answer %s is %s', (a, kind) => {
    expect(classifyAddress(a)).toBe(kind);
  });

  it('a name whose resolver answers in such a form is judged by the address it means', async () => {
    const lookup = dns({ 'odd.example': ['93.184.215.14', '::ffff:0:a00:1'] });
    expect(await refused('live', 'https://odd.example/x', { lookup })).toMatch(/private/);
  });
});
