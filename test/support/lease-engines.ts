// The claim and lease stores on both engines, for tests: a database shared by several
// "instances", each with its own connection (SQLite: its own connection to one file, as two
// processes would have; PostgreSQL: its own pool on one database of a real cluster).
import { Database } from 'bun:sqlite';
import { SQL } from 'bun';
import { createClaimStore, type ClaimStore } from '../../src/store/claims';
import { createLeaseStore, type LeaseStore } from '../../src/store/leases';
import { createPgClaimStore } from '../../src/store/pg/claims';
import { createPgLeaseStore } from '../../src/store/pg/leases';
import { migratePg } from '../../src/store/pg/migrate';
import { tempDb } from './db';
import { freshDatabaseUrl } from './postgres';

export interface Conn {
  leases: LeaseStore;
  claims(owner: string): ClaimStore;
  /** Run fn in one transaction on this connection, with the lease store bound to it. */
  transaction<T>(fn: (leases: LeaseStore) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface Shared {
  /** The database: a file path or a postgres:// URL. */
  url: string;
  connect(): Conn;
  dispose(): Promise<void>;
}

export interface Engine {
  name: 'sqlite' | 'postgres';
  open(): Promise<Shared>;
}

export const sqliteEngine: Engine = {
  name: 'sqlite',
  async open() {
    // The real migrations (0008_leases_claims).
    const t = tempDb();
    const conns: Database[] = [];
    return {
      url: t.path,
      connect() {
        const db = new Database(t.path, { strict: true });
        db.exec('PRAGMA busy_timeout = 5000');
        db.exec('PRAGMA synchronous = FULL');
        conns.push(db);
        return {
          leases: createLeaseStore(db),
          claims: (owner) => createClaimStore(db, owner),
          // bun:sqlite transactions are synchronous: fn must not await anything but this store.
          async transaction(fn) {
            db.exec('BEGIN IMMEDIATE');
            try {
              const r = await fn(createLeaseStore(db));
              db.exec('COMMIT');
              return r;
            } catch (e) {
              db.exec('ROLLBACK');
              throw e;
            }
          },
          close: async () => db.close(),
        };
      },
      async dispose() {
        for (const c of conns) c.close();
        t.dispose();
      },
    };
  },
};

export const postgresEngine: Engine = {
  name: 'postgres',
  async open() {
    const url = await freshDatabaseUrl();
    const admin = new SQL({ url, max: 1 });
    await migratePg(admin);
    const pools: SQL[] = [admin];
    return {
      url,
      connect() {
        const sql = new SQL({ url, max: 4 });
        pools.push(sql);
        return {
          leases: createPgLeaseStore(sql),
          claims: (owner) => createPgClaimStore(sql, owner),
          transaction: (fn) => sql.begin((tx) => fn(createPgLeaseStore(tx))),
          close: () => sql.close(),
        };
      },
      async dispose() {
        await Promise.all(pools.map((p) => p.close().catch(() => undefined)));
      },
    };
  },
};

export const engines: Engine[] = [sqliteEngine, postgresEngine];
