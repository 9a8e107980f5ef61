// A real core (a fresh database of the store under test with the real migrations: a SQLite file
// with its group commit, or PostgreSQL with PAYFORGE_TEST_STORE=postgres; runtime, chain watch)
// whose EVM watcher is scripted by the test: it reports only what it has been asked to watch,
// exactly as a real watcher does, so a runtime that stops watching an intent stops hearing of it.
import { validate } from '../../src/config';
import { DEFAULT_CONFIG, type Config } from '../../src/config.types';
import { createCore, type Core, type CoreOptions } from '../../src/compose';
import { createEvmAdapter } from '../../src/chains/evm/adapter';
import type { ChainObservation, WatchItem } from '../../src/chains/types';
import type { Tx } from '../../src/actors/runtime';
import type { StoredIntent } from '../../src/store/intents';
import type { Db } from '../../src/store/db';
import { sqliteOf, type SqliteStore } from '../../src/store/store';
import { afterEach } from 'vitest';
import { storedIntent } from './db';
import { freshTestDatabase, type TestDatabase } from './test-store';

export const CHAIN = 'eip155:84532';

export interface ScriptedWatcher {
  watched: Map<string, WatchItem>;
  /** Every watch/unwatch call, in order. */
  calls: Array<['watch' | 'unwatch', string]>;
  /** Report like a watcher that follows `intentId`; false (nothing said) when it does not follow it. */
  say(intentId: string, type: ChainObservation['type'], opts?: { forget?: boolean }): boolean;
  /**
   * Report about `item` as handed to watch() earlier, whatever is watched now: a verdict decided
   * before an await and emitted after it, as a real watcher's tick can (`txSignature`: under a
   * repriced copy's hash).
   */
  sayAbout(item: WatchItem, type: ChainObservation['type'], txSignature?: string): void;
}

export function scriptedWatcher(): { watcher: ScriptedWatcher; adapter: NonNullable<CoreOptions['adapters']>['evm'] } {
  const watched = new Map<string, WatchItem>();
  const calls: ScriptedWatcher['calls'] = [];
  let report: ((o: ChainObservation) => void) | null = null;
  const watcher: ScriptedWatcher = {
    watched,
    calls,
    say(intentId, type, opts = {}) {
      const item = watched.get(intentId);
      if (!item || !report) return false;
      // A Solana-like watcher forgets a transaction once it reported a final verdict.
      if (opts.forget) watched.delete(intentId);
      watcher.sayAbout(item, type);
      return true;
    },
    sayAbout(item, type, txSignature = item.txSignature) {
      const base = { intentId: item.intentId, txSignature, follows: item.txSignature };
      report?.(type === 'failed' ? { ...base, type, reason: 'revert' } : { ...base, type });
    },
  };
  const real = createEvmAdapter();
  return {
    watcher,
    adapter: {
      ...real,
      createWatcher(_network, _rpc, r) {
        report = r;
        return {
          watch(item) {
            calls.push(['watch', item.intentId]);
            watched.set(item.intentId, item);
          },
          unwatch(id) {
            calls.push(['unwatch', id]);
            watched.delete(id);
          },
          async stop() {
            watched.clear();
          },
        };
      },
    },
  };
}

/** A core on `db` (a SQLite path or a postgres:// URL; its RPC upstream is never called: the watcher is scripted, detection is off). */
export async function scriptedCore(db: string, opts: Omit<CoreOptions, 'adapters'> = {}): Promise<{ core: Core; watcher: ScriptedWatcher }> {
  const { watcher, adapter } = scriptedWatcher();
  const config = validate({
    ...structuredClone(DEFAULT_CONFIG),
    db,
    logLevel: 'error',
    networks: { [CHAIN]: { rpc: ['http://127.0.0.1:9'] } },
  });
  const core = await createCore(config, { ...opts, adapters: { evm: adapter } });
  return { core, watcher };
}

/** Insert an intent (created, TTL from now) and, with `tx`, submit it: pending with a transaction to follow. */
export async function pendingIntent(core: Core, over: Partial<StoredIntent> = {}, submit = true): Promise<StoredIntent> {
  const now = Date.now();
  const { state: _s, snapshot: _n, machineVersion: _m, ...fields } = storedIntent({ createdAt: now, updatedAt: now, expiresAt: now + 600_000, ...over });
  return core.runtime.write(async (tx: Tx) => {
    const row = await tx.insert(fields);
    if (!submit) return row;
    const txSignature = `0x${crypto.randomUUID().replaceAll('-', '').padEnd(64, '0')}`;
    return (await tx.apply(row, { type: 'SUBMIT', at: tx.now, txSignature }, 'throw', {
      // Bytes to rebroadcast while pending (the scripted watcher never sends them).
      signedTransaction: 'c2lnbmVkIGJ5dGVz',
      watchData: { from: '0x2222222222222222222222222222222222222222', nonce: 0, sinceBlock: 0 },
    }))!;
  });
}

/** The SQLite store under a core (for a test that is SQLite's by nature: it faults the file). */
export function sqliteStore(core: Core): SqliteStore {
  const s = sqliteOf(core.store);
  if (!s) throw new Error('this test needs a SQLite store');
  return s;
}

export const sqliteDb = (core: Core): Db => sqliteStore(core).db;

/** An intent's row as committed (through the store's repositories: either engine). */
export const rowOf = async (core: Core, id: string): Promise<StoredIntent | null> => core.store.repos.intents.get(id);

/** Event types recorded for an intent, oldest first (what webhooks deliver). */
export async function eventTypesOf(core: Core, intentId: string): Promise<string[]> {
  return (await core.store.repos.events.timeline(intentId)).map((e) => e.type);
}

/** Poll until `check` returns a value (no fixed sleeps): fails with `what` after `ms`. */
export async function until<T>(check: () => T | null | undefined | false | Promise<T | null | undefined | false>, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Scripted cores on fresh databases for one test file: `start()` opens one (on a new database,
 * or on `path` to restart on the same one) and `begin` brings it up; every core still running is
 * stopped, and every temp folder removed, after each test. `stopped(core)` is for a test that stops one
 * itself (a restart).
 */
export function scriptedCores(begin: (core: Core) => unknown, opts: Omit<CoreOptions, 'adapters'> = {}) {
  let dbs: TestDatabase[] = [];
  let cores: Core[] = [];
  afterEach(async () => {
    for (const c of cores) await c.stop();
    for (const d of dbs) d.dispose();
    cores = [];
    dbs = [];
  });
  return {
    async start(path?: string): Promise<{ core: Core; watcher: ScriptedWatcher; path: string }> {
      let p = path;
      if (!p) {
        const d = await freshTestDatabase();
        dbs.push(d);
        p = d.db;
      }
      const { core, watcher } = await scriptedCore(p, opts);
      cores.push(core);
      await begin(core);
      return { core, watcher, path: p };
    },
    stopped(core: Core): void {
      cores = cores.filter((c) => c !== core);
    },
  };
}

/** A real core (the default config) on a fresh database of the engine under test, and a test-mode key of a new account. */
/** `over`: top-level config keys replaced (e.g. rateLimit for a test that creates many intents). */
export async function coreWithKey(over: Partial<Config> = {}): Promise<{ core: Core; key: string; stop(): Promise<void> }> {
  const fresh = await freshTestDatabase();
  const core = await createCore(validate({ ...structuredClone(DEFAULT_CONFIG), ...over, db: fresh.db, logLevel: 'error' }));
  const acct = await core.store.repos.accounts.create({ name: 'm', plan: 'pro' });
  const key = (await core.store.repos.apiKeys.create({ accountId: acct.id, mode: 'test' })).key;
  return {
    core,
    key,
    async stop() {
      await core.stop();
      fresh.dispose();
    },
  };
}
