// PostgreSQL for tests: one cluster per test file (vitest's threads pool gives every file its own
// copy of this module), started lazily by the first test that asks and stopped in the file's
// afterAll; every test takes its own empty database from freshDatabaseUrl(). No PostgreSQL on
// the machine → the test FAILS with findPostgresBin's message (never skipped).
import { SQL } from 'bun';
import { afterAll } from 'vitest';
import { type OwnedCluster, type PgCluster, startCluster } from './postgres-cluster';

export { findPostgresBin, type PgCluster, startCluster } from './postgres-cluster';

let shared: Promise<OwnedCluster> | undefined;
let admin: SQL | undefined;
let counter = 0;

/** This file's cluster, started by the first caller. */
export function pgCluster(): Promise<PgCluster> {
  shared ??= startCluster();
  return shared;
}

/** A new, empty database on this file's cluster: its `postgres://` URL. */
export async function freshDatabaseUrl(): Promise<string> {
  const cluster = await pgCluster();
  if (!cluster.running()) await cluster.start();
  admin ??= new SQL({ url: cluster.url(), max: 1 });
  const name = `t${process.pid}_${++counter}`;
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } catch (e) {
    // The admin connection died with a stop()/start() of the cluster: one new connection, once.
    await admin.close().catch(() => undefined);
    admin = new SQL({ url: cluster.url(), max: 1 });
    if (!/connection|closed|terminat/i.test(String(e))) throw e;
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  }
  return cluster.url(name);
}

/** The name the shared design uses. */
export const createDatabase = freshDatabaseUrl;

afterAll(async () => {
  const started = shared;
  shared = undefined;
  await admin?.close().catch(() => undefined);
  admin = undefined;
  if (started) await (await started).destroy();
});
