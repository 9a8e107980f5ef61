// Idempotency keys for create: the first response is stored with a hash of the request, in the
// same transaction as the intent, so a replay returns exactly what the first call returned.
import type { Database } from 'bun:sqlite';
import type { Mode } from '../domain/intent';
import type { Awaitable, Sync } from './awaitable';
import { sqliteClaims } from './claim-slots';

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
   * A claim row in the database (src/store/claim-slots.ts), so it holds across instances and
   * processes; it frees itself after CLAIM_TTL_MS if its holder died. Always `release` it.
   */
  claim(accountId: string, mode: Mode, key: string): Awaitable<boolean>;
  release(accountId: string, mode: Mode, key: string): Awaitable<void>;
}

/**
 * `claims`: the in-flight keys, one set per store (its tokens are shared by every transaction's
 * repositories); by default claims in this database owned by a process-unique id.
 */
export function createIdempotencyRepo(sqlite: Database, claims = sqliteClaims(sqlite).idempotency): Sync<IdempotencyRepo> {
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
    claim: claims.claim,
    release: claims.release,
  };
}
