// The API key look-up of every authenticated request (src/compose.ts checkKey), and what it
// remembers: src/store/api-keys.ts and accounts.ts call forgetKeys after their writes.
import type { Statement } from 'bun:sqlite';
import type { Caller } from '../domain/caller';
import type { Mode } from '../domain/intent';
import { configWrites } from './config-writes';
import type { Db } from './db';

export interface ActiveKey {
  keyId: string;
  accountId: string;
  mode: Mode;
  /** The account's plan (accounts.ts Plan; named through the domain so accounts.ts may import this file). */
  plan: Caller['plan'];
}

// Every authenticated request looks its key up, so positive answers are remembered per open
// database (a WeakMap: a closed Db does not leak them) and forgotten whenever they could be stale:
// at once on a revoke or plan change through this connection (forgetKeys), and on the first
// look-up of each event-loop turn when any connection (the CLI, another process, this one) wrote
// API keys or accounts since the last turn's look: the count of such writes that migration 0018's
// triggers keep (config-writes.ts) moved. One read of it per turn, shared by every request of the
// turn, instead of one key look-up per request (README Decisions: API key cache). It was
// `PRAGMA data_version`, which moves on ANY other connection's commit: under webhook traffic the
// dispatcher thread commits all the time, and the next turn read its keys again after each.
interface KeyLookup {
  find: Statement<ActiveKey, [string]>;
  seen: number;
  /** True from the turn's first look-up until the turn's end (a setImmediate clears it). */
  checked: boolean;
  known: Map<string, ActiveKey>;
}
const lookups = new WeakMap<Db['sqlite'], KeyLookup>();
/** Keys remembered at most (distinct keys in use; past it, the map starts afresh). */
const MAX_KNOWN = 10_000;

function lookupOf(db: Db): KeyLookup {
  let l = lookups.get(db.sqlite);
  if (!l) {
    l = {
      find: db.sqlite.prepare<ActiveKey, [string]>(
        // A correlated subselect, not a JOIN: SQLite plans it as two primary-key look-ups (~3x faster).
        `SELECT k.id AS keyId, k.account_id AS accountId, k.mode AS mode,
                (SELECT plan FROM accounts WHERE id = k.account_id) AS plan
           FROM api_keys k
          WHERE k.hash = ? AND k.revoked_at IS NULL`,
      ),
      seen: Number.NaN,
      checked: false,
      known: new Map(),
    };
    lookups.set(db.sqlite, l);
  }
  return l;
}

/** Forget every remembered key of this connection: its own write may have revoked one or changed a plan. */
export function forgetKeys(db: Db): void {
  lookups.get(db.sqlite)?.known.clear();
}

export function findActiveKeyByHash(db: Db, sha256hex: string): ActiveKey | null {
  const l = lookupOf(db);
  if (!l.checked) {
    l.checked = true;
    setImmediate(() => {
      l.checked = false;
    });
    const v = configWrites(db.sqlite);
    if (v !== l.seen) {
      l.seen = v;
      l.known.clear();
    }
  }
  const known = l.known.get(sha256hex);
  if (known) return known;
  const found = l.find.get(sha256hex);
  if (!found || !found.plan) return null;
  if (l.known.size >= MAX_KNOWN) l.known.clear();
  l.known.set(sha256hex, found);
  return found;
}
