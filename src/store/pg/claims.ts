// Claims on PostgreSQL (pg-design 10; the SQLite twin and the why: src/store/claims.ts). Expiry is
// judged by the database clock, so the instances' clocks do not matter.
import type { SQL } from 'bun';
import type { Mode } from '../../domain/intent';
import { broadcastClaims, idempotencyClaims } from '../claim-slots';
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

/**
 * The in-flight guards on PostgreSQL (src/store/claim-slots.ts): ONE per store, on the pool
 * (a claim is taken before the request's transaction and outlives it), shared by every
 * transaction's repositories. `owner` names the instance in the rows.
 */
export function pgClaimSlots(pool: SQL, owner = `proc_${crypto.randomUUID()}`) {
  const store = createPgClaimStore(pool, owner);
  const i = idempotencyClaims(store);
  const b = broadcastClaims(store);
  return {
    idempotency: {
      claim: async (accountId: string, mode: Mode, key: string) => i.claim(accountId, mode, key),
      release: async (accountId: string, mode: Mode, key: string) => i.release(accountId, mode, key),
    },
    broadcast: {
      claimBroadcast: async (chain: string, tx: string) => b.claimBroadcast(chain, tx),
      releaseBroadcast: async (chain: string, tx: string) => b.releaseBroadcast(chain, tx),
      isBroadcasting: async (chain: string, tx: string) => b.isBroadcasting(chain, tx),
    },
  };
}
