import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { DEFAULT_CONFIG } from '../../src/config.types';

const dir = mkdtempSync(join(tmpdir(), 'pf-config-'));
let n = 0;
function file(content: unknown, ext = 'json'): string {
  const path = join(dir, `c${n++}.${ext}`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

// The contract's sample (section 1), as JSON and as TOML with the same keys.
const SAMPLE = {
  networks: {
    'eip155:84532': {
      rpc: ['http://127.0.0.1:8545'],
      confirmations: 1,
      pollIntervalMs: 250,
      tokens: { USDC: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6 } },
    },
    'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': {
      rpc: ['http://127.0.0.1:8899'],
      tokens: { USDC: { address: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', decimals: 6 } },
    },
  },
  intents: { defaultTtlSeconds: 900, minTtlSeconds: 60, maxTtlSeconds: 604800 },
  webhooks: { retryScheduleSeconds: [60, 300, 1800, 7200, 18000, 36000, 43200, 57600, 86400], timeoutMs: 10000, allowPrivateUrls: false },
  screening: { extraAddresses: [], listDir: 'data/sanctions', provider: { url: 'https://screen.example', apiKey: 'k', timeoutMs: 2000 } },
  idempotency: { ttlSeconds: 86400 },
  rateLimit: { perSecond: 200, burst: 400 },
  adminToken: 'admin-secret',
};
const SAMPLE_TOML = `
adminToken = "admin-secret"

[networks."eip155:84532"]
rpc = ["http://127.0.0.1:8545"]
confirmations = 1
pollIntervalMs = 250
tokens = { USDC = { address = "0x036CbD53842c5426634e7929541eC2318f3dCF7e", decimals = 6 } }

[networks."solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"]
rpc = ["http://127.0.0.1:8899"]
tokens = { USDC = { address = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", decimals = 6 } }

[intents]
defaultTtlSeconds = 900
minTtlSeconds = 60
maxTtlSeconds = 604800

[webhooks]
retryScheduleSeconds = [60, 300, 1800, 7200, 18000, 36000, 43200, 57600, 86400]
timeoutMs = 10000
allowPrivateUrls = false

[screening]
extraAddresses = []
listDir = "data/sanctions"
provider = { url = "https://screen.example", apiKey = "k", timeoutMs = 2000 }

[idempotency]
ttlSeconds = 86400

[rateLimit]
perSecond = 200
burst = 400
`;

describe('loadConfig', () => {
  it('writes creates on the event loop unless sqlite.writerThread turns the thread on (measured slower on 2 cores)', () => {
    expect(DEFAULT_CONFIG.sqlite.writerThread).toBe(false);
    const file = join(mkdtempSync(join(tmpdir(), 'pf-cfg-')), 'writer.json');
    writeFileSync(file, JSON.stringify({ sqlite: { writerThread: true } }));
    expect(loadConfig({ config: file }, {}).sqlite.writerThread).toBe(true);
  });

  it('returns the built-in defaults when nothing is given', () => {
    expect(loadConfig({}, {})).toEqual(DEFAULT_CONFIG);
  });

  it('takes every key of the contract sample, from JSON and from TOML alike', () => {
    const fromJson = loadConfig({ config: file(SAMPLE) }, {});
    const fromToml = loadConfig({ config: file(SAMPLE_TOML, 'toml') }, {});
    expect(JSON.parse(JSON.stringify(fromToml))).toEqual(JSON.parse(JSON.stringify(fromJson)));
    expect(fromJson.networks['eip155:84532']?.pollIntervalMs).toBe(250);
    expect(fromJson.screening.provider).toEqual({ url: 'https://screen.example', apiKey: 'k', timeoutMs: 2000 });
    expect(fromJson.screening.listDir).toBe('data/sanctions');
    expect(fromJson.adminToken).toBe('admin-secret');
    // Keys the file leaves out keep their defaults.
    expect(fromJson.webhooks.leaseMs).toBe(DEFAULT_CONFIG.webhooks.leaseMs);
    expect(fromJson.port).toBe(8080);
  });

  it('applies defaults < file < environment < flags', () => {
    const cfg = file({ port: 1111, host: 'file-host', db: 'file.db', adminToken: 'file-token', logLevel: 'warn' });
    const env = { PAYFORGE_PORT: '2222', PAYFORGE_HOST: 'env-host', PAYFORGE_DB: 'env.db' };
    expect(loadConfig({ config: cfg }, {})).toMatchObject({ port: 1111, host: 'file-host', db: 'file.db', adminToken: 'file-token', logLevel: 'warn' });
    expect(loadConfig({ config: cfg }, { ...env, PAYFORGE_ADMIN_TOKEN: 'env-token', PAYFORGE_LOG_LEVEL: 'debug' })).toMatchObject({
      port: 2222, host: 'env-host', db: 'env.db', adminToken: 'env-token', logLevel: 'debug',
    });
    expect(loadConfig({ config: cfg, port: '3333', host: 'flag-host', db: 'flag.db' }, env)).toMatchObject({
      port: 3333, host: 'flag-host', db: 'flag.db',
    });
  });

  it('reads the file named by PAYFORGE_CONFIG, and --config wins over it', () => {
    const a = file({ port: 1001 });
    const b = file({ port: 1002 });
    expect(loadConfig({}, { PAYFORGE_CONFIG: a }).port).toBe(1001);
    expect(loadConfig({ config: b }, { PAYFORGE_CONFIG: a }).port).toBe(1002);
  });

  it('resolves a relative config path against opts.cwd', () => {
    writeFileSync(join(dir, 'relative.json'), JSON.stringify({ host: 'rel' }));
    expect(loadConfig({ config: 'relative.json' }, {}, { cwd: dir }).host).toBe('rel');
  });

  it('ignores empty environment variables', () => {
    expect(loadConfig({}, { PAYFORGE_PORT: '', PAYFORGE_HOST: '' })).toMatchObject({ port: 8080, host: '127.0.0.1' });
  });

  it('accepts fractional retry waits, so tests never wait minutes', () => {
    const c = loadConfig({ config: file({ webhooks: { retryScheduleSeconds: [0.05, 0.1] } }) }, {});
    expect(c.webhooks.retryScheduleSeconds).toEqual([0.05, 0.1]);
  });

  it('gives a provider without timeoutMs the 2 s default', () => {
    const c = loadConfig({ config: file({ screening: { provider: { url: 'http://127.0.0.1:9', apiKey: 'k' } } }) }, {});
    expect(c.screening.provider?.timeoutMs).toBe(2000);
  });

  it('returns a deeply frozen object', () => {
    const c = loadConfig({ config: file(SAMPLE) }, {});
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.webhooks.retryScheduleSeconds)).toBe(true);
    expect(Object.isFrozen(c.networks['eip155:84532']?.tokens?.USDC)).toBe(true);
    expect(() => {
      (c.webhooks as { timeoutMs: number }).timeoutMs = 1;
    }).toThrow(TypeError);
    // The shared defaults object is never frozen or changed by loading.
    expect(Object.isFrozen(DEFAULT_CONFIG.webhooks)).toBe(false);
  });
});

describe('loadConfig refuses a bad key, naming it', () => {
  const cases: Array<[string, unknown, string]> = [
    ['timeoutMs below 1', { webhooks: { timeoutMs: 0 } }, 'config: webhooks.timeoutMs must be a number >= 1'],
    ['timeoutMs as a string', { webhooks: { timeoutMs: '10' } }, 'config: webhooks.timeoutMs must be a number >= 1'],
    ['unknown top-level key', { colour: 'blue' }, 'config: colour is not a known key'],
    ['unknown nested key', { webhooks: { retries: 3 } }, 'config: webhooks.retries is not a known key'],
    ['unknown chain id', { networks: { 'eip155:1': { confirmations: 2 } } }, 'config: networks.eip155:1 is not a built-in chain'],
    ['rpc not http(s)', { networks: { 'eip155:84532': { rpc: ['ws://x'] } } }, 'config: networks.eip155:84532.rpc[0] must be an http(s) URL'],
    ['rpc not an array', { networks: { 'eip155:84532': { rpc: 'http://x' } } }, 'config: networks.eip155:84532.rpc must be a non-empty array of http(s) URLs'],
    ['confirmations 0', { networks: { 'eip155:84532': { confirmations: 0 } } }, 'config: networks.eip155:84532.confirmations must be an integer >= 1'],
    ['pollIntervalMs 0', { networks: { 'eip155:84532': { pollIntervalMs: 0 } } }, 'config: networks.eip155:84532.pollIntervalMs must be a number >= 1'],
    ['unknown network key', { networks: { 'eip155:84532': { gas: 1 } } }, 'config: networks.eip155:84532.gas is not a known key'],
    ['decimals 37', { networks: { 'eip155:84532': { tokens: { X: { address: '0x1', decimals: 37 } } } } }, 'config: networks.eip155:84532.tokens.X.decimals must be an integer from 0 to 36'],
    ['token without address', { networks: { 'eip155:84532': { tokens: { X: { decimals: 6 } } } } }, 'config: networks.eip155:84532.tokens.X.address is required'],
    // A token address that is no address: intents were created with it (paymentUri, builds) and failed later.
    ['EVM token address not an address', { networks: { 'eip155:84532': { tokens: { USDC: { address: '0x12', decimals: 6 } } } } }, 'config: networks.eip155:84532.tokens.USDC.address must be a token contract address (0x + 40 hex)'],
    ['EVM token address the zero address', { networks: { 'eip155:8453': { tokens: { X: { address: `0x${'0'.repeat(40)}`, decimals: 6 } } } } }, 'config: networks.eip155:8453.tokens.X.address must be a token contract address'],
    ['Solana mint not base58', { networks: { 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': { tokens: { USDC: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6 } } } } }, 'config: networks.solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1.tokens.USDC.address must be a mint address (base58)'],
    ['ttl bounds out of order', { intents: { minTtlSeconds: 1000 } }, 'config: intents.defaultTtlSeconds must lie between intents.minTtlSeconds and intents.maxTtlSeconds'],
    ['ttl not an integer', { intents: { maxTtlSeconds: 1.5 } }, 'config: intents.maxTtlSeconds must be an integer >= 1'],
    ['empty retry schedule', { webhooks: { retryScheduleSeconds: [] } }, 'config: webhooks.retryScheduleSeconds must be a non-empty array'],
    ['retry wait of 0', { webhooks: { retryScheduleSeconds: [1, 0] } }, 'config: webhooks.retryScheduleSeconds[1] must be a number > 0'],
    ['more than 10 attempts', { webhooks: { retryScheduleSeconds: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1] } }, 'config: webhooks.retryScheduleSeconds must be a non-empty array of at most 9'],
    ['allowPrivateUrls not boolean', { webhooks: { allowPrivateUrls: 'yes' } }, 'config: webhooks.allowPrivateUrls must be true or false'],
    ['extraAddresses not strings', { screening: { extraAddresses: [1] } }, 'config: screening.extraAddresses[0] must be a non-empty string'],
    ['extraAddressesFile a number', { screening: { extraAddressesFile: 5 } }, 'config: screening.extraAddressesFile must be a file path or null'],
    ['listDir empty', { screening: { listDir: '' } }, 'config: screening.listDir must be a folder path or null'],
    ['provider url not http(s)', { screening: { provider: { url: 'x', apiKey: 'k' } } }, 'config: screening.provider.url must be an http(s) URL'],
    ['provider without apiKey', { screening: { provider: { url: 'https://x' } } }, 'config: screening.provider.apiKey is required'],
    ['provider timeoutMs 0', { screening: { provider: { url: 'https://x', apiKey: 'k', timeoutMs: 0 } } }, 'config: screening.provider.timeoutMs must be a number >= 1'],
    ['provider unknown key', { screening: { provider: { url: 'https://x', apiKey: 'k', retries: 1 } } }, 'config: screening.provider.retries is not a known key'],
    ['idempotency ttl 0', { idempotency: { ttlSeconds: 0 } }, 'config: idempotency.ttlSeconds must be a number > 0'],
    ['rateLimit perSecond negative', { rateLimit: { perSecond: -1 } }, 'config: rateLimit.perSecond must be a number > 0'],
    ['rateLimit burst 0', { rateLimit: { burst: 0 } }, 'config: rateLimit.burst must be a number >= 1'],
    ['sqlite.writerThread not boolean', { sqlite: { writerThread: 'yes' } }, 'config: sqlite.writerThread must be true or false'],
    ['adminToken empty', { adminToken: '' }, 'config: adminToken must be a non-empty string'],
    ['logLevel unknown', { logLevel: 'trace' }, 'config: logLevel must be one of debug, info, warn, error'],
    ['section not an object', { webhooks: 3 }, 'config: webhooks must be an object'],
    ['port out of range', { port: 70000 }, 'config: port must be an integer from 0 to 65535'],
    ['db a URL of another engine', { db: 'mysql://u:p@h/db' }, 'config: db must be a SQLite file path, :memory:, or a postgres:// (postgresql://) URL (got a mysql:// URL)'],
    ['db a postgres URL without host', { db: 'postgres:///payforge' }, 'the postgres:// URL names no host'],
    ['poolSize 0', { cluster: { poolSize: 0 } }, 'config: cluster.poolSize must be an integer from 1 to 1000'],
  ];
  it.each(cases)('%s', (_name, content, message) => {
    const path = file(content);
    expect(() => loadConfig({ config: path }, {})).toThrow(ConfigError);
    expect(() => loadConfig({ config: path }, {})).toThrow(message);
  });

  it('takes a postgres:// or postgresql:// db from the environment or a flag, and a pool size', () => {
    expect(loadConfig({}, { PAYFORGE_DB: 'postgres://pf:secret@db.internal:5432/payforge' }).db).toBe('postgres://pf:secret@db.internal:5432/payforge');
    expect(loadConfig({ db: 'postgresql://db/payforge' }, {}).db).toBe('postgresql://db/payforge');
    expect(loadConfig({ config: file({ cluster: { poolSize: 20 } }) }, {}).cluster).toEqual({ leaseSeconds: 10, poolSize: 20 });
    expect(loadConfig({}, {}).cluster.poolSize).toBe(10);
  });

  it('never repeats the password of a refused db URL', () => {
    expect(() => loadConfig({ db: 'mysql://u:hunter2@h/db' }, {})).toThrow(/^(?!.*hunter2).*mysql:\/\/ URL/);
  });

  it('names a bad port from the environment or a flag', () => {
    expect(() => loadConfig({}, { PAYFORGE_PORT: 'eighty' })).toThrow('config: port must be an integer from 0 to 65535 (PAYFORGE_PORT=eighty)');
    expect(() => loadConfig({ port: '99999' }, {})).toThrow('(--port=99999)');
  });

  it('names a bad log level from the environment', () => {
    expect(() => loadConfig({}, { PAYFORGE_LOG_LEVEL: 'loud' })).toThrow('config: logLevel must be one of');
  });

  it('reports a missing, malformed JSON or malformed TOML file with its path', () => {
    expect(() => loadConfig({ config: join(dir, 'nope.json') }, {})).toThrow(/config: cannot read config file .*nope\.json/);
    const badJson = file('{ "port": ', 'json');
    expect(() => loadConfig({ config: badJson }, {})).toThrow(`config: ${badJson} is not valid JSON`);
    const badToml = file('port = = 1', 'toml');
    expect(() => loadConfig({ config: badToml }, {})).toThrow(`config: ${badToml} is not valid TOML`);
    expect(() => loadConfig({ config: file('[1, 2]') }, {})).toThrow('must hold an object');
  });
});
