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
  put(accountId: string, mode: Mode, key: string, r: StoredResponse, now: number, ttlSeconds: number): Awaitable<void>;
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
    `INSERT OR REPLACE INTO idempotency_keys (account_id, mode, key, request_hash, response_status, response_body, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
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
      put.run(accountId, mode, key, r.requestHash, r.responseStatus, r.responseBody, now, now + ttlSeconds * 1000);
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
