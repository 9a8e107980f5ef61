// Claims on PostgreSQL (pg-design 10; the SQLite twin and the why: src/store/claims.ts). Expiry is
// judged by the database clock, so the instances' clocks do not matter.
import type { SQL } from 'bun';
import { claimToken, type ClaimStore } from '../claims';

/** `sql`: the pool, or a transaction's handle (then the claim joins that transaction). */
export function createPgClaimStore(sql: SQL, owner: string): ClaimStore {
  return {
    async claim(kind, key, ttlMs) {
      const token = claimToken(owner);
      const rows = await sql`
        INSERT INTO claims (kind, key, owner, expires_at)
        VALUES (${kind}, ${key}, ${token}, (extract(epoch from now()) * 1000)::bigint + ${ttlMs}::bigint)
        ON CONFLICT (kind, key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
        WHERE claims.expires_at < (extract(epoch from now()) * 1000)::bigint
        RETURNING owner`;
      return rows.length === 1 ? token : null;
    },
    async release(kind, key, token) {
      await sql`DELETE FROM claims WHERE kind = ${kind} AND key = ${key} AND owner = ${token}`;
    },
    async held(kind, key) {
      const rows = await sql`
        SELECT 1 AS x FROM claims WHERE kind = ${kind} AND key = ${key} AND expires_at >= (extract(epoch from now()) * 1000)::bigint`;
      return rows.length > 0;
    },
  };
}
