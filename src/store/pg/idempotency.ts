// Idempotency keys on PostgreSQL, as ../idempotency.ts: a stored response is returned until it
// expires (expires_at > now); a put never replaces a live one (an expired key is reused).
import type { IdempotencyRepo, StoredResponse } from '../idempotency';
import { pgClaimSlots } from './claims';
import { type Async, changes, first, type Pg } from './sql';

/** Who holds a key whose first request is in flight (claim/release): one per store. */
export type IdempotencySlots = Pick<Async<IdempotencyRepo>, 'claim' | 'release'>;

/** `slots` are the store's (shared by every transaction's repos). */
export function createPgIdempotencyRepo(q: Pg, slots: IdempotencySlots = pgClaimSlots(q).idempotency): Async<IdempotencyRepo> {
  return {
    ...slots,
    async get(accountId, mode, key, now) {
      const r = await first<{ request_hash: string; response_status: number; response_body: string }>(
        q,
        `SELECT request_hash, response_status, response_body FROM idempotency_keys
          WHERE account_id = $1 AND mode = $2 AND key = $3 AND expires_at > $4`,
        [accountId, mode, key, now],
      );
      return r ? { requestHash: r.request_hash, responseStatus: Number(r.response_status), responseBody: r.response_body } : null;
    },
    async put(accountId, mode, key, r: StoredResponse, now, ttlSeconds) {
      // Under READ COMMITTED a concurrent insert of the key waits for the other transaction; once
      // that commits, the WHERE sees its live row and nothing is written (0 rows): never overwrite.
      const n = await changes(
        q,
        `INSERT INTO idempotency_keys (account_id, mode, key, request_hash, response_status, response_body, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (account_id, mode, key) DO UPDATE SET request_hash = excluded.request_hash,
           response_status = excluded.response_status, response_body = excluded.response_body,
           created_at = excluded.created_at, expires_at = excluded.expires_at
         WHERE idempotency_keys.expires_at <= $7`,
        [accountId, mode, key, r.requestHash, r.responseStatus, r.responseBody, now, now + ttlSeconds * 1000],
      );
      return n === 1;
    },
    purge: (now) => changes(q, 'DELETE FROM idempotency_keys WHERE expires_at <= $1', [now]),
  };
}
