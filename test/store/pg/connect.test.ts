// Opening a postgres:// database (src/store/pg/connect.ts) on a real PostgreSQL: migrated on
// open, ping and /readyz answer 503 while the server is down, a query on a dead connection is
// AppError store.unavailable (503 with retry_after), and after the restart the pool works again
// by itself with no dead connection kept.
import { afterEach, describe, expect, it } from 'vitest';
import { healthRoutes } from '../../../src/api/health/index';
import type { ApiDeps } from '../../../src/api/deps';
import { AppError } from '../../../src/domain/errors';
import { appliedPgMigrations } from '../../../src/store/pg/migrate';
import { PG_MIGRATIONS } from '../../../src/store/pg/migrations.generated';
import {
  describeDb,
  guardUnavailable,
  isStoreUnavailable,
  openPg,
  STORE_RETRY_AFTER_SECONDS,
  type PgPool,
} from '../../../src/store/pg/connect';
import { openPgStore } from '../../../src/store/pg/open';
import { errorResponse } from '../../../src/web/envelope';
import { statesTagged } from '../../../machines/judge';
import { freshDatabaseUrl, pgCluster } from '../../support/postgres';

const pools: PgPool[] = [];
afterEach(async () => {
  const cluster = await pgCluster();
  if (!cluster.running()) await cluster.start();
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

async function open(poolSize = 4): Promise<PgPool> {
  const pool = await openPg(await freshDatabaseUrl(), { poolSize });
  pools.push(pool);
  return pool;
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

function readyz(pool: PgPool) {
  const deps = { ready: () => true, ping: () => pool.ping(), metrics: () => '' } as unknown as ApiDeps;
  const app = healthRoutes(deps);
  return async () => {
    const r = await app.handle(new Request('http://localhost/readyz'));
    return { status: r.status, body: await r.json(), retryAfter: r.headers.get('retry-after') };
  };
}

describe('openPg', () => {
  it('applies the embedded migrations and answers ping', async () => {
    const pool = await open();
    expect(await appliedPgMigrations(pool.sql)).toEqual(PG_MIGRATIONS.map((m) => m.tag).sort());
    await expect(pool.ping()).resolves.toBeUndefined();
  });

  it('database down: ping, /readyz and queries answer store.unavailable 503; restarted: all works again by itself', async () => {
    const pool = await open(4);
    const accounts = guardUnavailable({
      count: async () => Number((await pool.sql`SELECT count(*)::int AS n FROM accounts`)[0].n),
      broken: async () => pool.sql`SELECT * FROM no_such_table`,
    });
    const check = readyz(pool);
    expect(await accounts.count()).toBe(0);
    expect((await check()).status).toBe(200);

    const cluster = await pgCluster();
    await cluster.stop('fast');
    const ping = await caught(pool.ping());
    expect(ping).toBeInstanceOf(AppError);
    expect((ping as AppError).code).toBe('store.unavailable');
    expect(await check()).toEqual({ status: 503, body: { status: 'unavailable' }, retryAfter: '1' });
    const query = (await caught(accounts.count())) as AppError;
    expect(query).toBeInstanceOf(AppError);
    expect(query.code).toBe('store.unavailable');
    expect(query.details).toEqual({ retry_after: STORE_RETRY_AFTER_SECONDS });
    const res = errorResponse(query, 'req_1');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe(String(STORE_RETRY_AFTER_SECONDS));
    expect((await res.json()).error.code).toBe('store.unavailable');

    await cluster.start();
    await expect(pool.ping()).resolves.toBeUndefined();
    expect((await check()).status).toBe(200);
    // Every connection of the pool at once: none of them is a dead one kept from before.
    const pids = await Promise.all(
      Array.from({ length: 4 }, async () => (await pool.sql`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`)[0].pid as number),
    );
    expect(pids).toHaveLength(4);
    // A wrong query stays what it is: not an outage.
    const bad = await caught(accounts.broken());
    expect(bad).not.toBeInstanceOf(AppError);
    expect(isStoreUnavailable(bad)).toBe(false);
  });

  it('a connection killed under it (server crash) is unavailable, and the next query reconnects', async () => {
    const pool = await open(1);
    const cluster = await pgCluster();
    const running = pool.sql`SELECT pg_sleep(30)`.catch((e: unknown) => e);
    // Wait (polled) until the sleep is running on the server, then crash the server under it.
    const admin = await openPg(cluster.url(), { poolSize: 1 });
    pools.push(admin);
    for (const end = Date.now() + 10_000; ; ) {
      const [{ n }] = await admin.sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%'`;
      if (n > 0) break;
      if (Date.now() > end) throw new Error('the sleeping query never showed up');
      await new Promise((r) => setTimeout(r, 20));
    }
    await cluster.stop('immediate');
    expect(isStoreUnavailable(await running)).toBe(true);
    await cluster.start();
    expect([...(await pool.sql`SELECT 1 AS one`)]).toEqual([{ one: 1 }]);
  });

  it('the PostgreSQL store: repositories, transact and ping answer store.unavailable while the database is down, then work again', async () => {
    const store = await openPgStore(await freshDatabaseUrl(), { states: { live: statesTagged('live'), watching: statesTagged('watching') }, max: 2 });
    try {
      expect(await store.repos.accounts.list()).toEqual([]);
      const cluster = await pgCluster();
      await cluster.stop('fast');
      for (const attempt of [store.repos.accounts.list(), store.transact(async (tx) => tx.accounts.list()), store.ping()]) {
        const e = (await caught(attempt)) as AppError;
        expect(e).toBeInstanceOf(AppError);
        expect([e.code, e.details.retry_after]).toEqual(['store.unavailable', STORE_RETRY_AFTER_SECONDS]);
      }
      await cluster.start();
      await store.ping();
      expect(await store.transact(async (tx) => tx.accounts.list())).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('never shows a database password in logs', () => {
    expect(describeDb('postgres://pf:s3cret@db:5432/payforge')).toBe('postgres://pf:***@db:5432/payforge');
    expect(describeDb('./data/payforge.db')).toBe('./data/payforge.db');
  });
});
