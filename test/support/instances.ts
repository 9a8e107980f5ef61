// Several real `payforge serve` processes on one database (contract 13): each is
// `bun src/main.ts serve --port 0` with one shared config file, so each listens on a port the OS
// picked. Tests kill one with SIGKILL, wait for readiness, and talk to any live one. Accounts,
// keys and the webhook endpoint are made through the CLI on the same database URL, as an
// operator of a PostgreSQL deployment does (no process of the test holds a connection of its own).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../src/config.types';
import type { Mode } from '../../src/domain/intent';
import { runCli, startServe } from './cli';
import { client, type ApiClient, type DeepPartial } from './server';

type Serve = Awaited<ReturnType<typeof startServe>>;

export interface Instance {
  /** a, b, c, … in start order (for messages). */
  name: string;
  url: string;
  pid: number;
  api(key: string | null): ApiClient;
  /** Still running (not killed, not exited). */
  alive(): boolean;
  /** SIGKILL: no handler runs, nothing is flushed or released; resolves once the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM and the exit code. */
  stop(): Promise<number>;
  /** GET /readyz status (0 when nothing answers). */
  readyz(): Promise<number>;
  /** What it logged on stderr (JSON lines), for failure messages. */
  logs(): string;
}

export interface Instances {
  db: string;
  config: Record<string, unknown>;
  all: Instance[];
  /** The instances still running. */
  live(): Instance[];
  /** Start one more on the same database and config (resolves once /readyz answers 200). */
  add(): Promise<Instance>;
  /** The i-th live instance, round robin: spread requests over what is running. */
  pick(i: number): Instance;
  /** `payforge <args> --db <db>` as a subprocess; throws with its output unless it exits 0. */
  cli<T = any>(args: string[]): Promise<T>;
  /** A new account (pro) with a key in `mode`, both through the CLI. */
  account(opts?: { plan?: 'free' | 'pro'; mode?: Mode; name?: string }): Promise<{ accountId: string; key: string }>;
  /** `payforge webhooks set-endpoint`: the account's endpoint for `mode`. */
  setEndpoint(accountId: string, mode: Mode, url: string): Promise<{ url: string; secret: string }>;
  /** Every instance's logs, labelled (for failure messages). */
  logs(): string;
  /** SIGTERM every live instance, then remove the config folder. */
  stop(): Promise<void>;
}

export interface InstancesOptions {
  /** A `postgres://` URL (or a SQLite path: then only one serve may run on it). */
  db: string;
  count: number;
  /** Merged over the defaults below (leaseSeconds 3, logLevel warn, rate limit out of the way). */
  config?: DeepPartial<Config>;
  /** Milliseconds to wait for each instance's /readyz (a loaded 2-core machine boots slowly). */
  readyTimeoutMs?: number;
}

function merge(base: Record<string, unknown>, over: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over ?? {})) {
    const b = out[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b) ? merge(b as Record<string, unknown>, v as Record<string, unknown>) : v;
  }
  return out;
}

/** Poll until `check` is true (no vitest here: benches use this file too). */
async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

async function readyzOf(url: string): Promise<number> {
  try {
    const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) });
    await r.arrayBuffer();
    return r.status;
  } catch {
    return 0;
  }
}

export async function startInstances(opts: InstancesOptions): Promise<Instances> {
  const dir = mkdtempSync(join(tmpdir(), 'pf-instances-'));
  const configPath = join(dir, 'payforge.json');
  const config = merge(
    {
      logLevel: 'warn',
      cluster: { leaseSeconds: 3 },
      // Requests of a test come from one key at up to 64 at once: the limiter is not under test.
      rateLimit: { perSecond: 1_000_000, burst: 1_000_000 },
      webhooks: { allowPrivateUrls: true },
    },
    opts.config as Record<string, unknown> | undefined,
  );
  writeFileSync(configPath, JSON.stringify(config));
  const readyTimeoutMs = opts.readyTimeoutMs ?? 60_000;
  const all: Instance[] = [];

  function wrap(name: string, s: Serve): Instance {
    let dead = false;
    void s.proc.exited.then(() => (dead = true));
    return {
      name,
      url: s.url,
      pid: s.proc.pid,
      api: (key) => client(s.url, key),
      alive: () => !dead && s.proc.exitCode === null && s.proc.signalCode === null,
      async kill9() {
        s.proc.kill('SIGKILL');
        await s.proc.exited;
        dead = true;
      },
      async stop() {
        if (dead) return s.proc.exitCode ?? -1;
        return s.stop();
      },
      readyz: () => readyzOf(s.url),
      logs: s.stderr,
    };
  }

  let started = 0;
  async function add(): Promise<Instance> {
    const name = String.fromCharCode(97 + started++);
    const s = await startServe(['serve', '--port', '0', '--db', opts.db, '--config', configPath]);
    const inst = wrap(name, s);
    all.push(inst);
    await until(
      async () => {
        if (!inst.alive()) throw new Error(`instance ${name} exited before it was ready:\n${inst.logs()}`);
        return (await inst.readyz()) === 200;
      },
      readyTimeoutMs,
      `instance ${name} /readyz 200`,
    );
    return inst;
  }

  async function cli<T>(args: string[]): Promise<T> {
    const r = await runCli([...args, '--db', opts.db]);
    if (r.code !== 0) throw new Error(`payforge ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
    return r.json<T>();
  }

  const live = () => all.filter((i) => i.alive());
  const instances: Instances = {
    db: opts.db,
    config,
    all,
    live,
    add,
    pick(i) {
      const l = live();
      if (l.length === 0) throw new Error('no live instance');
      return l[i % l.length]!;
    },
    cli,
    async account(o = {}) {
      const acct = await cli<{ id: string }>(['accounts', 'create', '--name', o.name ?? 'multi', '--plan', o.plan ?? 'pro']);
      const k = await cli<{ key: string }>(['keys', 'create', '--account', acct.id, '--mode', o.mode ?? 'test']);
      return { accountId: acct.id, key: k.key };
    },
    setEndpoint: (accountId, mode, url) => cli(['webhooks', 'set-endpoint', '--account', accountId, '--mode', mode, '--url', url]),
    logs: () => all.map((i) => `--- instance ${i.name} (pid ${i.pid}${i.alive() ? '' : ', gone'}):\n${i.logs().slice(-4000)}`).join('\n'),
    async stop() {
      await Promise.all(live().map((i) => i.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // Side by side, as a deploy starts them: migrations and first leases race on one database.
    await Promise.all(Array.from({ length: opts.count }, () => add()));
  } catch (e) {
    await instances.stop();
    throw e;
  }
  return instances;
}
