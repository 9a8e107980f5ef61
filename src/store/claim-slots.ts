// The two in-flight guards as claims in the database (issue 12 item 2), the same on both engines:
// IdempotencyRepo.claim/release (a create's idempotency key whose first request is in flight) and
// SubmissionRepo.claimBroadcast/releaseBroadcast/isBroadcasting (one broadcast of a transaction at
// a time, and reconciliation never takes a live broadcast for a dead one). One instance of these
// per store (not per transaction): it keeps the token of each claim it holds, to release exactly
// that claim and never a successor's.
import type { Mode } from '../domain/intent';
import type { Database } from 'bun:sqlite';
import type { Awaitable, Sync } from './awaitable';
import { createClaimStore, type ClaimStore } from './claims';

/**
 * How long a claim holds when its holder never releases it (crashed, or cut off from the database).
 * It must outlast the longest request that holds one, or a second request would start while the
 * first still runs: a create holds its key through screening (provider timeout 10 s by default) and
 * one write; a submit holds its broadcast through verification, screening, the broadcast (RPC
 * timeout 5 s per upstream, failing over between a few) and three writes. 60 s is several times
 * that. Past it the guard only frees early: the intent's write is still idempotent in the database
 * (the idempotency key and the submission row are unique there).
 */
export const CLAIM_TTL_MS = 60_000;

export interface IdempotencyClaims {
  claim(accountId: string, mode: Mode, key: string): Awaitable<boolean>;
  release(accountId: string, mode: Mode, key: string): Awaitable<void>;
}

export interface BroadcastClaims {
  claimBroadcast(chain: string, txSignature: string): Awaitable<boolean>;
  releaseBroadcast(chain: string, txSignature: string): Awaitable<void>;
  isBroadcasting(chain: string, txSignature: string): Awaitable<boolean>;
}

/** f applied to a value or to a promise of one: a synchronous store (SQLite) keeps synchronous slots. */
const then = <A, B>(v: A | Promise<A>, f: (a: A) => B): B | Promise<B> => (v instanceof Promise ? v.then(f) : f(v));

function slots(store: ClaimStore, kind: string, ttlMs: number) {
  const tokens = new Map<string, string>();
  return {
    claim: (key: string): Awaitable<boolean> =>
      then(store.claim(kind, key, ttlMs), (token) => {
        if (token === null) return false;
        tokens.set(key, token);
        return true;
      }),
    release(key: string): Awaitable<void> {
      const token = tokens.get(key);
      if (token === undefined) return;
      tokens.delete(key);
      return store.release(kind, key, token);
    },
    held: (key: string): Awaitable<boolean> => store.held(kind, key),
  };
}

export function idempotencyClaims(store: ClaimStore, ttlMs = CLAIM_TTL_MS): IdempotencyClaims {
  const s = slots(store, 'idempotency', ttlMs);
  const key = (accountId: string, mode: Mode, k: string) => `${accountId}:${mode}:${k}`;
  return {
    claim: (a, m, k) => s.claim(key(a, m, k)),
    release: (a, m, k) => s.release(key(a, m, k)),
  };
}

export function broadcastClaims(store: ClaimStore, ttlMs = CLAIM_TTL_MS): BroadcastClaims {
  const s = slots(store, 'broadcast', ttlMs);
  const key = (chain: string, tx: string) => `${chain}|${tx}`;
  return {
    claimBroadcast: (c, t) => s.claim(key(c, t)),
    releaseBroadcast: (c, t) => s.release(key(c, t)),
    isBroadcasting: (c, t) => s.held(key(c, t)),
  };
}

/**
 * Both sets on one SQLite database, owned by `owner` (default: unique to this call). bun:sqlite is
 * synchronous, and so are these.
 */
export function sqliteClaims(sqlite: Database, owner = `proc_${crypto.randomUUID()}`) {
  const store = createClaimStore(sqlite, owner);
  return {
    idempotency: idempotencyClaims(store) as Sync<IdempotencyClaims>,
    broadcast: broadcastClaims(store) as Sync<BroadcastClaims>,
  };
}
