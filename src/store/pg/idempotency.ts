// Idempotency keys on PostgreSQL, as ../idempotency.ts: a stored response is returned until it
// expires (expires_at > now), a put replaces whatever the key held (an expired key is reused).
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
      await q.unsafe(
        `INSERT INTO idempotency_keys (account_id, mode, key, request_hash, response_status, response_body, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (account_id, mode, key) DO UPDATE SET request_hash = excluded.request_hash,
           response_status = excluded.response_status, response_body = excluded.response_body,
           created_at = excluded.created_at, expires_at = excluded.expires_at`,
        [accountId, mode, key, r.requestHash, r.responseStatus, r.responseBody, now, now + ttlSeconds * 1000],
      );
    },
    purge: (now) => changes(q, 'DELETE FROM idempotency_keys WHERE expires_at <= $1', [now]),
  };
}
