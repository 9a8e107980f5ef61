// Loads the configuration once at boot: defaults < config file < environment < flags,
// validated with TypeBox and deeply frozen. The only reader of process.env in the codebase.
// Environment variables read: PAYFORGE_CONFIG, PAYFORGE_PORT, PAYFORGE_HOST, PAYFORGE_DB,
// PAYFORGE_ADMIN_TOKEN, PAYFORGE_LOG_LEVEL.
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { type TSchema, Type } from '@sinclair/typebox';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import { parse as parseToml } from 'smol-toml';
import { BUILT_IN_CHAINS } from './chains/networks';
import { type Config, DEFAULT_CONFIG } from './config.types';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The flags every command accepts that feed the config (serve adds inspect). */
export interface ConfigFlags {
  port?: string | number;
  host?: string;
  db?: string;
  config?: string;
  inspect?: boolean | string;
}

export type Env = Record<string, string | undefined>;

export interface LoadConfigOptions {
  /** Base for a relative config file path (default: the process's cwd). */
  cwd?: string;
}

// `description` doubles as the error text: "config: <path> must be <description>".
const num = (minimum: number, description = `a number >= ${minimum}`) => Type.Number({ minimum, description });
const positive = (description = 'a number > 0') => Type.Number({ exclusiveMinimum: 0, description });
const int = (minimum: number, maximum?: number) =>
  Type.Integer({
    minimum,
    ...(maximum === undefined ? {} : { maximum }),
    description: maximum === undefined ? `an integer >= ${minimum}` : `an integer from ${minimum} to ${maximum}`,
  });
const str = (description = 'a non-empty string') => Type.String({ minLength: 1, description });
const httpUrl = () => Type.String({ pattern: '^https?://[^\\s]+$', description: 'an http(s) URL' });
const bool = () => Type.Boolean({ description: 'true or false' });
const obj = <T extends Record<string, TSchema>>(props: T) =>
  Type.Object(props, { additionalProperties: false, description: 'an object' });

const TokenSchema = obj({ address: str(), decimals: int(0, 36) });
const NetworkSchema = Type.Object(
  {
    rpc: Type.Optional(Type.Array(httpUrl(), { minItems: 1, description: 'a non-empty array of http(s) URLs' })),
    confirmations: Type.Optional(int(1)),
    pollIntervalMs: Type.Optional(num(1)),
    rebroadcastIntervalMs: Type.Optional(num(1)),
    tokens: Type.Optional(Type.Record(Type.String(), TokenSchema, { description: 'an object of symbol -> {address, decimals}' })),
  },
  { additionalProperties: false, description: 'an object' },
);
const ProviderSchema = obj({ url: httpUrl(), apiKey: str(), timeoutMs: num(1) });

/** The whole, merged configuration: every key required, no unknown keys. */
export const ConfigSchema = obj({
  port: int(0, 65535),
  host: str(),
  db: str(),
  networks: Type.Record(Type.String(), NetworkSchema, { description: 'an object keyed by chain id' }),
  intents: obj({ defaultTtlSeconds: int(1), minTtlSeconds: int(1), maxTtlSeconds: int(1) }),
  webhooks: obj({
    // 10 attempts at most (contract section 8): the schedule lists the waits between them.
    retryScheduleSeconds: Type.Array(positive(), {
      minItems: 1,
      maxItems: 9,
      description: 'a non-empty array of at most 9 numbers > 0',
    }),
    timeoutMs: num(1),
    allowPrivateUrls: bool(),
    pollIntervalMs: num(1),
    leaseMs: num(1),
    concurrency: int(1),
    perEndpointConcurrency: int(1),
    rotationOverlapSeconds: num(0),
  }),
  screening: obj({
    extraAddresses: Type.Array(str(), { description: 'an array of addresses' }),
    extraAddressesFile: Type.Union([Type.Null(), str('a file path')], { description: 'a file path or null' }),
    listDir: Type.Union([Type.Null(), str('a folder path')], { description: 'a folder path or null' }),
    provider: Type.Union([Type.Null(), ProviderSchema], { description: 'an object {url, apiKey, timeoutMs} or null' }),
  }),
  idempotency: obj({ ttlSeconds: positive() }),
  detection: obj({ lookbackSeconds: num(0) }),
  cluster: obj({ leaseSeconds: positive(), poolSize: int(1, 1000) }),
  rateLimit: obj({ perSecond: positive(), burst: num(1) }),
  sqlite: obj({ writerThread: bool() }),
  rpc: obj({ timeoutMs: num(1), breakerFailures: int(1), breakerCooldownMs: num(0), retryAfterSeconds: int(1) }),
  adminToken: Type.Union([Type.Null(), str()], { description: 'a non-empty string' }),
  publicUrl: Type.Union([Type.Null(), Type.String({ pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$' })], {
    description: 'null or an http(s) URL without query or fragment, e.g. https://pay.example.com',
  }),
  logLevel: Type.Union(
    [Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')],
    { description: 'one of debug, info, warn, error' },
  ),
  inspect: Type.Union([Type.Boolean(), Type.String({ pattern: '^wss?://[^\\s]+$' })], {
    description: 'true, false, or a ws:// (or wss://) URL of a local inspector',
  }),
});

export function loadConfig(flags: ConfigFlags = {}, env: Env = process.env, opts: LoadConfigOptions = {}): Config {
  const cwd = opts.cwd ?? process.cwd();
  const file = flags.config ?? nonEmpty(env.PAYFORGE_CONFIG);
  let merged: unknown = structuredClone(DEFAULT_CONFIG);
  if (file !== undefined) merged = deepMerge(merged, readConfigFile(isAbsolute(file) ? file : resolve(cwd, file)));

  const over: Record<string, unknown> = {};
  if (nonEmpty(env.PAYFORGE_PORT) !== undefined) over.port = toPort(env.PAYFORGE_PORT as string, 'PAYFORGE_PORT');
  if (nonEmpty(env.PAYFORGE_HOST) !== undefined) over.host = env.PAYFORGE_HOST;
  if (nonEmpty(env.PAYFORGE_DB) !== undefined) over.db = env.PAYFORGE_DB;
  if (nonEmpty(env.PAYFORGE_ADMIN_TOKEN) !== undefined) over.adminToken = env.PAYFORGE_ADMIN_TOKEN;
  if (nonEmpty(env.PAYFORGE_PUBLIC_URL) !== undefined) over.publicUrl = env.PAYFORGE_PUBLIC_URL;
  if (nonEmpty(env.PAYFORGE_LOG_LEVEL) !== undefined) over.logLevel = env.PAYFORGE_LOG_LEVEL;
  if (flags.port !== undefined) over.port = toPort(String(flags.port), '--port');
  if (flags.host !== undefined) over.host = flags.host;
  if (flags.db !== undefined) over.db = flags.db;
  if (flags.inspect !== undefined) over.inspect = flags.inspect;
  merged = deepMerge(merged, over);

  return deepFreeze(validate(merged));
}

/** Throws ConfigError naming the first bad key; returns the value typed as Config. */
export function validate(value: unknown): Config {
  if (isPlainObject(value) && isPlainObject(value.networks)) {
    for (const chain of Object.keys(value.networks)) {
      if (!BUILT_IN_CHAINS.includes(chain)) {
        throw new ConfigError(`config: networks.${chain} is not a built-in chain (one of ${BUILT_IN_CHAINS.join(', ')})`);
      }
    }
  }
  const problem = firstProblem(ConfigSchema, value, '');
  if (problem) throw new ConfigError(`config: ${problem}`);
  const config = value as Config;
  checkDb(config.db);
  checkTokenAddresses(config);
  const { minTtlSeconds: min, defaultTtlSeconds: def, maxTtlSeconds: max } = config.intents;
  if (!(min <= def && def <= max)) {
    throw new ConfigError(
      `config: intents.defaultTtlSeconds must lie between intents.minTtlSeconds and intents.maxTtlSeconds (got ${min} <= ${def} <= ${max})`,
    );
  }
  return config;
}

/**
 * Every configured token is an address of its chain's family: intents take it as tokenAddress
 * (paymentUri, builds, detection), so "0x12" would only fail once a payer tried to pay.
 */
// Syntax only (no viem or @solana/kit here: every CLI command loads the config, and they cost
// ~0.1 s to import): 0x + 40 hex; base58 of 32 to 44 characters (a 32-byte key).
const EVM_TOKEN_RE = /^0x[0-9a-fA-F]{40}$/;
const SOLANA_MINT_RE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

function checkTokenAddresses(config: Config): void {
  for (const [chain, net] of Object.entries(config.networks ?? {})) {
    for (const [symbol, token] of Object.entries(net?.tokens ?? {})) {
      const at = `config: networks.${chain}.tokens.${symbol}.address`;
      if (chain.startsWith('eip155:')) {
        if (!EVM_TOKEN_RE.test(token.address) || /^0x0{40}$/i.test(token.address)) throw new ConfigError(`${at} must be a token contract address (0x + 40 hex)`);
      } else if (!SOLANA_MINT_RE.test(token.address)) {
        throw new ConfigError(`${at} must be a mint address (base58)`);
      }
    }
  }
}

/**
 * `db` is a SQLite file path, `:memory:`, or a `postgres://` / `postgresql://` URL (contract
 * section 13). Any other URL scheme is a mistake, not a file name. The message never repeats a
 * URL's password.
 */
function checkDb(db: string): void {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(db)?.[1];
  if (scheme === undefined) return;
  const usage = 'a SQLite file path, :memory:, or a postgres:// (postgresql://) URL';
  if (!/^postgres(ql)?$/i.test(scheme)) throw new ConfigError(`config: db must be ${usage} (got a ${scheme}:// URL)`);
  let url: URL;
  try {
    url = new URL(db);
  } catch {
    throw new ConfigError(`config: db must be ${usage} (the ${scheme}:// URL does not parse)`);
  }
  if (!url.hostname) throw new ConfigError(`config: db must be ${usage} (the ${scheme}:// URL names no host)`);
}

function firstProblem(schema: TSchema, value: unknown, prefix: string): string | null {
  const error = Value.Errors(schema, value).First();
  if (!error) return null;
  const pointer = prefix + error.path;
  const key = keyPath(pointer);
  if (error.type === ValueErrorType.ObjectAdditionalProperties) return `${key} is not a known key`;
  if (error.type === ValueErrorType.ObjectRequiredProperty) return `${key} is required`;
  // A nullable object given as an object: report the bad key inside it, not "expected union".
  if (error.type === ValueErrorType.Union && isPlainObject(error.value)) {
    const variant = (error.schema.anyOf as TSchema[]).find((s) => s.type === 'object');
    if (variant) return firstProblem(variant, error.value, pointer);
  }
  const what = (error.schema.description as string | undefined) ?? error.message.toLowerCase();
  return `${key} must be ${what}`;
}

/** "/networks/eip155:84532/rpc/0" -> "networks.eip155:84532.rpc[0]" */
function keyPath(pointer: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '') || '(root)';
}

function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`config: cannot read config file ${path}: ${(e as Error).message}`);
  }
  const toml = path.toLowerCase().endsWith('.toml');
  let parsed: unknown;
  try {
    parsed = toml ? parseToml(text) : JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`config: ${path} is not valid ${toml ? 'TOML' : 'JSON'}: ${(e as Error).message}`);
  }
  if (!isPlainObject(parsed)) throw new ConfigError(`config: ${path} must hold an object`);
  // A provider given without timeoutMs gets the contract's 2 s default.
  const screening = parsed.screening;
  if (isPlainObject(screening) && isPlainObject(screening.provider) && screening.provider.timeoutMs === undefined) {
    screening.provider.timeoutMs = 2000;
  }
  return parsed;
}

function toPort(raw: string, source: string): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > 65535) {
    throw new ConfigError(`config: port must be an integer from 0 to 65535 (${source}=${raw})`);
  }
  return Number(raw);
}

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  // TOML tables come back with a null prototype, hence no constructor check.
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Objects merge key by key; arrays and scalars replace. */
function deepMerge(base: unknown, over: unknown): unknown {
  if (!isPlainObject(over) || !isPlainObject(base)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    // defineProperty: a "__proto__" key from JSON stays a plain key (and fails validation).
    // Own keys only: a "constructor" key must not merge with Object.prototype's.
    const under = Object.hasOwn(base, k) ? base[k] : undefined;
    Object.defineProperty(out, k, { value: deepMerge(under, v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const child of Object.values(v)) deepFreeze(child);
    Object.freeze(v);
  }
  return v;
}
