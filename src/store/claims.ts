// Claims (pg-design 10): short-lived "someone is doing this now" markers in the database, so they
// hold across instances and across processes on one SQLite file: an idempotency key whose first
// request is in flight, a transaction being broadcast. A claim row is taken when absent or
// expired, in ONE statement (INSERT .. ON CONFLICT DO UPDATE .. WHERE expired), released by
// deleting it, and frees itself when its holder crashed (expires_at).
//
// SQLite: written with synchronous=NORMAL (no fsync), like the dispatcher's leases: a claim lost
// by an OS crash only frees early, and the request's own write is still idempotent in the
// database (the idempotency key and the submission row are unique there).
import type { Database } from 'bun:sqlite';
import type { Awaitable, Sync } from './awaitable';

export interface ClaimStore {
  /**
   * Take (kind, key) unless an unexpired claim of it exists (this instance's included: two
   * requests of one process exclude each other too). Returns the claim's token (release with
   * it), or null when it is held.
   */
  claim(kind: string, key: string, ttlMs: number): Awaitable<string | null>;
  /** Give it back; a no-op when it expired and someone else took it since (the token differs). */
  release(kind: string, key: string, token: string): Awaitable<void>;
  /** True while an unexpired claim of (kind, key) exists, whoever holds it. */
  held(kind: string, key: string): Awaitable<boolean>;
}

/** A token unique to one claim: the instance (for an operator reading the table) and a nonce. */
export const claimToken = (owner: string): string => `${owner}/${crypto.randomUUID()}`;

/**
 * Run `fn` (outside any transaction) with synchronous=NORMAL: its commit writes the WAL without
 * an fsync. The connection's own level (FULL, for transitions) is restored after.
 */
export function withoutFsync<T>(sqlite: Database, fn: () => T): T {
  const level = (sqlite.query('PRAGMA synchronous').get() as { synchronous: number }).synchronous;
  if (level <= 1) return fn();
  sqlite.exec('PRAGMA synchronous = NORMAL');
  try {
    return fn();
  } finally {
    sqlite.exec(`PRAGMA synchronous = ${level}`);
  }
}

export function createClaimStore(sqlite: Database, owner: string, now: () => number = Date.now): Sync<ClaimStore> {
  const take = sqlite.prepare<{ owner: string }, [string, string, string, number, number]>(
    `INSERT INTO claims (kind, key, owner, expires_at) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (kind, key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
     WHERE claims.expires_at < ?5
     RETURNING owner`,
  );
  const drop = sqlite.prepare('DELETE FROM claims WHERE kind = ? AND key = ? AND owner = ?');
  const live = sqlite.prepare<{ x: number }, [string, string, number]>('SELECT 1 AS x FROM claims WHERE kind = ? AND key = ? AND expires_at >= ?');
  /** One autocommit statement without fsync; inside an open transaction it simply joins it. */
  const unsynced = <T>(run: () => T): T => (sqlite.inTransaction ? run() : withoutFsync(sqlite, run));
  return {
    claim(kind, key, ttlMs) {
      const token = claimToken(owner);
      const t = now();
      return unsynced(() => take.get(kind, key, token, t + ttlMs, t)) ? token : null;
    },
    release(kind, key, token) {
      unsynced(() => drop.run(kind, key, token));
    },
    held: (kind, key) => live.get(kind, key, now()) !== null,
  };
}

/** SQLite, at the start of the one serve of a file: drop every claim not taken by `owner` (see SqliteStore.forgetPredecessors). */
export function forgetClaimsOfOthers(sqlite: Database, owner: string): number {
  return withoutFsync(sqlite, () => sqlite.query("DELETE FROM claims WHERE substr(owner, 1, length(?1) + 1) <> ?1 || '/'").run(owner).changes);
}
