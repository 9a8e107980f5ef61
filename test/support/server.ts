// A real PayForge server on a loopback port over a fresh database of the store under test (a temp
// SQLite file, or a PostgreSQL database with PAYFORGE_TEST_STORE=postgres; real migrations),
// with helpers to make accounts and keys. Every API test goes through real HTTP.
import { validate } from '../../src/config';
import { DEFAULT_CONFIG, type Config } from '../../src/config.types';
import type { CoreOptions } from '../../src/compose';
import { startServer, type ServerHandle } from '../../src/server';
import { setEndpoint } from '../../src/webhooks/set-endpoint';
import type { Mode } from '../../src/domain/intent';
import type { Store, StoreRepos } from '../../src/store/store';
import { webhookServices } from '../../src/webhooks/services';
import { adminStore, freshTestDatabase } from './test-store';

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K] };

function merge<T>(base: T, over: DeepPartial<T> | undefined): T {
  if (!over) return base;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' ? merge(b, v as never) : v;
  }
  return out as T;
}

export interface TestServer {
  url: string;
  /** A temp folder for the test's own files. */
  dir: string;
  /** The server's `db`: a SQLite file path or a postgres:// URL. */
  db: string;
  config: Config;
  handle: ServerHandle;
  /** A second handle on the server's database (as an operator's CLI has): setup and reads. */
  store: Store;
  /** Its repositories (on PostgreSQL every call answers a promise: await them). */
  repos: StoreRepos;
  /** Create an account with a key; returns the raw key and account id. */
  account(opts?: { plan?: 'free' | 'pro'; mode?: Mode; name?: string }): Promise<{ key: string; accountId: string }>;
  /** Another key for an existing account. */
  key(accountId: string, mode: Mode): Promise<string>;
  api(key: string): ApiClient;
  /** Configure the account's webhook endpoint (as `payforge webhooks set-endpoint` does). */
  setEndpoint(accountId: string, mode: Mode, url: string): Promise<{ url: string; secret: string }>;
  stop(): Promise<void>;
  /** Stop and start again on the same database file (restart test); `whileDown` runs in between. */
  restart(whileDown?: () => Promise<void>): Promise<void>;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ApiClient {
  req<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  get<T = any>(path: string): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  patch<T = any>(path: string, body?: unknown): Promise<ApiResponse<T>>;
}

export function client(url: string, key: string | null): ApiClient {
  const req = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, headers: res.headers, body: parsed as any };
  };
  return {
    req,
    get: (p) => req('GET', p),
    post: (p, b, h) => req('POST', p, b, h),
    patch: (p, b) => req('PATCH', p, b),
  };
}

export async function startTestServer(overrides?: DeepPartial<Config>, opts: { bootstrap?: boolean; core?: CoreOptions } = {}): Promise<TestServer> {
  const fresh = await freshTestDatabase();
  const config = validate(merge(merge(structuredClone(DEFAULT_CONFIG) as Config, { port: 0, db: fresh.db, logLevel: 'error' } as DeepPartial<Config>), overrides));
  let handle = await startServer(config, { bootstrap: opts.bootstrap ?? false, ...opts.core });
  // The CLI's code path writes accounts and keys through its own connection, as an operator would.
  const admin = await adminStore(config.db);
  const repos = admin.repos;
  const ts: TestServer = {
    get url() {
      return handle.url;
    },
    dir: fresh.dir,
    db: config.db,
    config,
    get handle() {
      return handle;
    },
    store: admin,
    repos,
    async account(o = {}) {
      const acct = await repos.accounts.create({ name: o.name ?? 'test', plan: o.plan ?? 'pro' });
      return { accountId: acct.id, key: (await repos.apiKeys.create({ accountId: acct.id, mode: o.mode ?? 'test' })).key };
    },
    key: async (accountId, mode) => (await repos.apiKeys.create({ accountId, mode })).key,
    api: (key) => client(handle.url, key),
    setEndpoint: (accountId, mode, url) => setEndpoint(webhookServices(repos, config), { accountId, mode }, { url }),
    async stop() {
      await handle.stop();
      await admin.close();
      fresh.dispose();
    },
    async restart(whileDown?: () => Promise<void>) {
      const port = handle.port;
      await handle.stop();
      await whileDown?.();
      handle = await startServer({ ...config, port }, { bootstrap: false });
    },
  } as TestServer;
  return ts;
}

/** A test server and one account's key and client: what most API test files start with. */
export async function startServerWithKey(
  account?: Parameters<TestServer['account']>[0],
  overrides?: DeepPartial<Config>,
): Promise<{ s: TestServer; key: string; accountId: string; api: ApiClient }> {
  const s = await startTestServer(overrides);
  const { key, accountId } = await s.account(account);
  return { s, key, accountId, api: s.api(key) };
}

export const BASE_SEPOLIA = 'eip155:84532';
export const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
export const TEMPO_MODERATO = 'eip155:42431';
export const BASE_MAINNET = 'eip155:8453';
export const EVM_ADDR = '0x1111111111111111111111111111111111111111';
export const EVM_ADDR2 = '0x2222222222222222222222222222222222222222';
export const SOL_ADDR = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

export function intentBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { chain: BASE_SEPOLIA, token: 'USDC', amount: '12.34', requestor: EVM_ADDR, ...over };
}
