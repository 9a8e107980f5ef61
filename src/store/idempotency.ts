// Idempotency keys for create: the first response is stored with a hash of the request, in the
// same transaction as the intent, so a replay returns exactly what the first call returned.
import type { Database } from 'bun:sqlite';
import type { Mode } from '../domain/intent';
import type { Awaitable, Sync } from './awaitable';

export interface StoredResponse {
  requestHash: string;
  responseStatus: number;
  responseBody: string;
}

export interface IdempotencyRepo {
  get(accountId: string, mode: Mode, key: string, now: number): Awaitable<StoredResponse | null>;
  /**
   * Store the first response of a key, in the create's own transaction. false (nothing written)
   * when the key already holds an unexpired response: another request (another instance, or one
   * whose claim ran out) committed it first, and the caller must roll back and replay that one.
   */
  put(accountId: string, mode: Mode, key: string, r: StoredResponse, now: number, ttlSeconds: number): Awaitable<boolean>;
  /** Delete expired keys; returns how many. */
  purge(now: number): Awaitable<number>;
  /**
   * Claim a key whose first request is still being processed; false when it is already claimed.
   * On SQLite one process owns the file (the single-instance guard), so this process's memory is
   * the lock; a multi-instance store takes it in the database instead. Always `release` it.
   */
  claim(accountId: string, mode: Mode, key: string): Awaitable<boolean>;
  release(accountId: string, mode: Mode, key: string): Awaitable<void>;
}

export function createIdempotencyRepo(sqlite: Database): Sync<IdempotencyRepo> {
  const get = sqlite.prepare(
    `SELECT request_hash, response_status, response_body FROM idempotency_keys
     WHERE account_id = ? AND mode = ? AND key = ? AND expires_at > ?`,
  );
  const put = sqlite.prepare(
    `INSERT INTO idempotency_keys (account_id, mode, key, request_hash, response_status, response_body, created_at, expires_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
     ON CONFLICT (account_id, mode, key) DO UPDATE SET request_hash = excluded.request_hash,
       response_status = excluded.response_status, response_body = excluded.response_body,
       created_at = excluded.created_at, expires_at = excluded.expires_at
     WHERE idempotency_keys.expires_at <= ?7`,
  );
  const purge = sqlite.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');
  const claimed = new Set<string>();
  const slot = (accountId: string, mode: Mode, key: string) => `${accountId}:${mode}:${key}`;
  return {
    get(accountId, mode, key, now) {
      const r = get.get(accountId, mode, key, now) as
        | { request_hash: string; response_status: number; response_body: string }
        | null;
      return r ? { requestHash: r.request_hash, responseStatus: r.response_status, responseBody: r.response_body } : null;
    },
    put(accountId, mode, key, r, now, ttlSeconds) {
      return put.run(accountId, mode, key, r.requestHash, r.responseStatus, r.responseBody, now, now + ttlSeconds * 1000).changes === 1;
    },
    purge: (now) => purge.run(now).changes,
    claim(accountId, mode, key) {
      const k = slot(accountId, mode, key);
      if (claimed.has(k)) return false;
      claimed.add(k);
      return true;
    },
    release: (accountId, mode, key) => void claimed.delete(slot(accountId, mode, key)),
  };
}
