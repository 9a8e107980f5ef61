// Opening a `postgres://` database: Bun's built-in SQL client (a pool), the embedded migrations
// applied, and the one place that decides which failures mean "the database cannot be reached"
// (contract section 13: requests answer 503 `store.unavailable` with `retry_after`, /readyz 503).
//
// Reconnecting is the pool's own: a connection the server closed (restart, failover, idle kill)
// leaves the pool, and the next query opens a new one. Nothing here retries a query: a write
// whose connection died may or may not have committed, so the caller gets 503 and retries with
// its idempotency key, which is safe either way.
import { SQL } from 'bun';
import { AppError } from '../../domain/errors';
import { migratePg } from './migrate';

/** The `retry_after` of a 503 `store.unavailable`: about one PostgreSQL restart or failover. */
export const STORE_RETRY_AFTER_SECONDS = 2;

/** Bun's client-side codes for a connection that could not be made or was lost. */
const CONNECTION_CODES = new Set([
  'ERR_POSTGRES_CONNECTION_CLOSED',
  'ERR_POSTGRES_CONNECTION_REFUSED',
  'ERR_POSTGRES_CONNECTION_FAILED',
  'ERR_POSTGRES_CONNECTION_TIMEOUT',
  'ERR_POSTGRES_IDLE_TIMEOUT',
  'ERR_POSTGRES_LIFETIME_TIMEOUT',
]);

/**
 * Server answers (SQLSTATE) that mean "not now" rather than "wrong query": class 08 connection
 * exception, 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up
 * or in recovery), 53300 too_many_connections.
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/** True when `e` says the database cannot be reached now (as opposed to a bad query or a constraint). */
export function isStoreUnavailable(e: unknown): boolean {
  if (e instanceof AppError) return e.code === 'store.unavailable';
  const err = e as { code?: unknown; errno?: unknown } | null;
  if (!err || typeof err !== 'object') return false;
  if (typeof err.code === 'string' && CONNECTION_CODES.has(err.code)) return true;
  if (typeof err.errno === 'string' && UNAVAILABLE_SQLSTATE.test(err.errno)) return true;
  // Socket errors surfaced as they are (ECONNREFUSED, ECONNRESET, ...).
  return typeof err.code === 'string' && /^(ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)/.test(err.code);
}

export function storeUnavailable(cause?: unknown): AppError {
  return new AppError('store.unavailable', 'The database cannot be reached right now; retry shortly.', {
    details: { retry_after: STORE_RETRY_AFTER_SECONDS },
    cause,
  });
}

/** The same outcome, with a lost or refused connection turned into AppError store.unavailable. */
export async function unavailableAs<T>(work: Promise<T> | (() => Promise<T>)): Promise<T> {
  try {
    return await (typeof work === 'function' ? work() : work);
  } catch (e) {
    throw isStoreUnavailable(e) && !(e instanceof AppError) ? storeUnavailable(e) : e;
  }
}

/**
 * The repository with every method's failure mapped as unavailableAs does (methods that return
 * a promise; other properties as they are). For the PostgreSQL repositories handed to the layers
 * above src/store, so a query on a dead connection answers 503, never 500.
 */
export function guardUnavailable<R extends object>(repo: R): R {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(repo)) {
    out[k] =
      typeof v === 'function'
        ? (...args: unknown[]) => {
            const r = (v as (...a: unknown[]) => unknown).apply(repo, args);
            return r instanceof Promise ? unavailableAs(r) : r;
          }
        : v;
  }
  return out as R;
}

export interface PgPool {
  sql: SQL;
  /** Resolves when the database answers within pingTimeoutMs, else throws AppError store.unavailable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface PgOptions {
  /** Connections in the pool (config cluster.poolSize). */
  poolSize: number;
  /** Waiting for a new connection beyond this fails the query (503), rather than hanging a request. */
  connectTimeoutSeconds?: number;
  /** A ping that gets no answer by then counts as unreachable (a hung server or network). */
  pingTimeoutMs?: number;
}

/**
 * Resolves when the database answers `SELECT 1` within `timeoutMs`, else throws AppError
 * store.unavailable (whatever the failure: a database that cannot run SELECT 1 is not usable).
 */
export async function pingWithin(sql: SQL, timeoutMs = 2_000): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(storeUnavailable(new Error(`no answer within ${timeoutMs} ms`))), timeoutMs);
  });
  try {
    await Promise.race([sql`SELECT 1`, timeout]);
  } catch (e) {
    throw e instanceof AppError ? e : storeUnavailable(e);
  } finally {
    clearTimeout(timer);
  }
}

/** The pool on `url`, without touching the database yet. */
export function createPgPool(url: string, opts: PgOptions): PgPool {
  const sql = new SQL({
    url,
    max: opts.poolSize,
    connectionTimeout: opts.connectTimeoutSeconds ?? 5,
    // Idle connections are closed after a while, so a pool sized for a burst does not hold
    // server slots (max_connections is shared by every instance) forever.
    idleTimeout: 60,
  });
  return { sql, ping: () => pingWithin(sql, opts.pingTimeoutMs), close: () => sql.close({ timeout: 5 }) };
}

/** The pool on `url` with the embedded migrations applied (every instance may do this at once). */
export async function openPg(url: string, opts: PgOptions): Promise<PgPool> {
  const pool = createPgPool(url, opts);
  try {
    await unavailableAs(() => migratePg(pool.sql));
  } catch (e) {
    await pool.close().catch(() => undefined);
    throw e;
  }
  return pool;
}

/** `db` for logs and CLI output: a postgres:// URL without its password. */
export function describeDb(db: string): string {
  if (!/^postgres(ql)?:\/\//i.test(db)) return db;
  try {
    const u = new URL(db);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
