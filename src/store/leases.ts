// Leases for live work (pg-design 9): `leases(name, owner, epoch, expires_at)`. A lease is taken
// when absent or expired, and every take raises its epoch; a row is never deleted (a release only
// expires it), so an epoch is never handed out twice and (name, epoch) fences a holder's writes:
// a write made for leased work checks it in its own transaction (`check`). The keeper's policy
// (which leases, how many, how often) is src/actors/work-leases.ts; this is the SQL.
//
// SQLite: judged by this process's clock (one host) and written without fsync like the claims:
// an OS crash that loses a renewal only lets the lease run out early, and the crashed process
// holds nothing any more anyway.
import type { Database } from 'bun:sqlite';
import type { Awaitable, Sync } from './awaitable';
import { withoutFsync } from './claims';

export interface Held {
  name: string;
  epoch: number;
}

export interface LeaseRow extends Held {
  owner: string;
  expiresAt: number;
}

export interface LeaseStore {
  /** Take each of `names` that is free or expired, for ttlMs; returns those taken with their new epochs. */
  take(names: readonly string[], owner: string, ttlMs: number): Awaitable<Held[]>;
  /** Extend the leases this owner still holds at these epochs; returns the names extended. */
  renew(held: readonly Held[], owner: string, ttlMs: number): Awaitable<string[]>;
  /** Give leases up at once (expired, epoch kept), if still held at these epochs. */
  release(held: readonly Held[], owner: string): Awaitable<void>;
  /** Unexpired leases whose name starts with `prefix`. */
  active(prefix: string): Awaitable<LeaseRow[]>;
  /**
   * Fencing: true when `owner` still holds `name` at `epoch`. Call it inside the transaction of the
   * write it guards; on PostgreSQL it locks the row FOR SHARE, so a takeover waits for that write.
   */
  check(name: string, epoch: number, owner: string): Awaitable<boolean>;
  /** Forget rows matching `prefix` that expired before `ms` ago (dead instances' heartbeats). */
  sweep(prefix: string, olderThanMs: number): Awaitable<number>;
}

type Row = { name: string; owner: string; epoch: number; expires_at: number };

export function createLeaseStore(sqlite: Database, now: () => number = Date.now): Sync<LeaseStore> {
  const take = sqlite.prepare<{ name: string; epoch: number }, [string, string, number, number]>(
    `INSERT INTO leases (name, owner, epoch, expires_at) VALUES (?1, ?2, 1, ?3)
     ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, epoch = leases.epoch + 1, expires_at = excluded.expires_at
     WHERE leases.expires_at < ?4
     RETURNING name, epoch`,
  );
  const renew = sqlite.prepare<{ name: string }, [number, string, number, string]>(
    'UPDATE leases SET expires_at = ?1 WHERE name = ?2 AND epoch = ?3 AND owner = ?4 RETURNING name',
  );
  const release = sqlite.prepare<unknown, [number, string, number, string]>(
    'UPDATE leases SET expires_at = ?1 WHERE name = ?2 AND epoch = ?3 AND owner = ?4',
  );
  const active = sqlite.prepare<Row, [string, number]>(
    "SELECT name, owner, epoch, expires_at FROM leases WHERE name LIKE ?1 || '%' ESCAPE '\\' AND expires_at >= ?2 ORDER BY name",
  );
  const check = sqlite.prepare<{ x: number }, [string, number, string]>('SELECT 1 AS x FROM leases WHERE name = ? AND epoch = ? AND owner = ?');
  const sweep = sqlite.prepare<unknown, [string, number]>("DELETE FROM leases WHERE name LIKE ?1 || '%' ESCAPE '\\' AND expires_at < ?2");

  const inTx = sqlite.transaction((fn: () => unknown) => fn());
  /**
   * One IMMEDIATE transaction committed without fsync. Never inside a transaction already open on
   * this connection (the group committer's batch, between two awaits of its writes): a lease
   * joining it would share its fate, so the keeper tries again at its next look instead.
   */
  const unsynced = <T>(fn: () => T): T => {
    if (sqlite.inTransaction) throw new Error('leases: a write transaction is open on this connection; retry at the next look');
    return withoutFsync(sqlite, () => inTx.immediate(fn) as T);
  };
  const like = (prefix: string) => prefix.replace(/[\\%_]/g, (c) => `\\${c}`);

  return {
    take(names, owner, ttlMs) {
      const t = now();
      return unsynced(() => names.flatMap((n) => take.all(n, owner, t + ttlMs, t)));
    },
    renew(held, owner, ttlMs) {
      const until = now() + ttlMs;
      return unsynced(() => held.flatMap((h) => renew.all(until, h.name, h.epoch, owner).map((r) => r.name)));
    },
    release(held, owner) {
      const t = now() - 1;
      unsynced(() => {
        for (const h of held) release.run(t, h.name, h.epoch, owner);
      });
    },
    active: (prefix) =>
      active.all(like(prefix), now()).map((r) => ({ name: r.name, owner: r.owner, epoch: r.epoch, expiresAt: r.expires_at })),
    check: (name, epoch, owner) => check.get(name, epoch, owner) !== null,
    sweep: (prefix, olderThanMs) => unsynced(() => sweep.run(like(prefix), now() - olderThanMs).changes),
  };
}

/** SQLite, at the start of the one serve of a file: expire (epochs kept) every lease another owner holds. */
export function expireLeasesOfOthers(sqlite: Database, owner: string, now: number = Date.now()): number {
  return withoutFsync(sqlite, () => sqlite.query('UPDATE leases SET expires_at = ?1 WHERE owner <> ?2 AND expires_at >= ?1').run(now - 1, owner).changes);
}
