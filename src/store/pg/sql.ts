// What every PostgreSQL repository is built on: a query handle that is either the pool (each
// statement on any free connection, autocommit) or a transaction from `sql.begin` (every
// statement on that one connection, inside BEGIN..COMMIT). Repositories never care which, so
// `transact` hands out the same repositories bound to its transaction.
import type { SQL } from 'bun';

/** The pool or a transaction (Bun's TransactionSQL extends SQL). */
export type Pg = SQL;

/**
 * A repository interface with every method returning a Promise: the PG implementations'
 * concrete types, assignable to the engine-neutral (Awaitable) interfaces.
 */
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K];
};

export type Row = Record<string, unknown>;

/**
 * Run one prepared statement (Bun names and caches it per connection); its rows as a plain array
 * (Bun's result array also carries count and command).
 */
export async function rows<T = Row>(q: Pg, text: string, params: readonly unknown[] = []): Promise<T[]> {
  if (hasNul(params) && READ.test(text)) return [];
  return Array.from((await q.unsafe(text, params as unknown[])) as T[]);
}

const READ = /^\s*SELECT\b/i;
const nul = (v: unknown) => typeof v === 'string' && v.includes('\u0000');

/**
 * PostgreSQL text cannot hold U+0000 (SQLite's can, and a lookup by it simply finds nothing there);
 * sent as a parameter it fails the statement (22021). No stored value can equal such a string, so a
 * read by one (an id from a URL) finds nothing, as on SQLite, instead of failing.
 */
export function hasNul(params: readonly unknown[]): boolean {
  return params.some((p) => nul(p) || (Array.isArray(p) && p.some(nul)));
}

export async function first<T = Row>(q: Pg, text: string, params: readonly unknown[] = []): Promise<T | null> {
  return ((await rows<T>(q, text, params))[0] as T | undefined) ?? null;
}

/** Run a write; how many rows it wrote. */
export async function changes(q: Pg, text: string, params: readonly unknown[] = []): Promise<number> {
  const r = (await q.unsafe(text, params as unknown[])) as unknown as { count: number };
  return r.count;
}

// int8 (times, seqs, counts) comes back as a string and BOOLEAN as a boolean: ../columns.ts reads
// them the same way for both engines.
import { num } from '../columns';

export { bool, num, numOrNull } from '../columns';

/** Convert the named columns of each row to numbers in place (aliased camelCase results). */
export function numbers<T>(list: Row[], cols: readonly string[]): T[] {
  for (const r of list) for (const c of cols) if (r[c] !== null && r[c] !== undefined) r[c] = num(r[c]);
  return list as T[];
}

/**
 * `fn` in one transaction: a savepoint inside the caller's transaction when `q` already is one,
 * else BEGIN..COMMIT on one pooled connection.
 */
export function atomically<T>(q: Pg, fn: (tx: Pg) => Promise<T>): Promise<T> {
  const sp = (q as { savepoint?: (f: (tx: Pg) => Promise<T>) => Promise<T> }).savepoint;
  if (typeof sp === 'function') return sp.call(q, fn);
  return q.begin((tx) => fn(tx as unknown as Pg)) as Promise<T>;
}

/** The SQLSTATE of a server error (Bun puts it in `errno`), or null. */
export function sqlState(e: unknown): string | null {
  const errno = (e as { errno?: unknown } | null)?.errno;
  return typeof errno === 'string' && /^[0-9A-Z]{5}$/.test(errno) ? errno : null;
}
