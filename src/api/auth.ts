// Bearer API keys: malformed, unknown or revoked -> 401 auth.invalid_api_key. Keys are looked
// up by SHA-256 hash (on SQLite the answers are remembered until a revoke could have changed them:
// src/store/api-key-lookup.ts, README Decisions).
import type { Caller } from '../domain/caller';
import { AppError } from '../domain/errors';
import { API_KEY_RE, hashApiKey, type ActiveKey } from '../store/api-keys';
import type { Awaitable } from '../store/awaitable';

/**
 * The caller of a request's Authorization header. Synchronous when `find` is (SQLite's look-up):
 * no promise per request then; a PostgreSQL look-up answers a promise.
 */
export function authenticate(header: string | undefined | null, find: (hash: string) => Awaitable<ActiveKey | null>): Caller | Promise<Caller> {
  // What follows "Bearer " must be a well-formed key: a slice and a test, not an exec (no match
  // array and captures per request). API_KEY_RE is anchored and admits no whitespace, so this
  // accepts exactly what /^Bearer (\S+)$/i with its capture matching API_KEY_RE accepted. The
  // scheme is case-insensitive (RFC 9110 section 11.1): "bearer" is what some clients send.
  const key = header && (header.startsWith('Bearer ') || (header.charCodeAt(6) === 32 && header.slice(0, 6).toLowerCase() === 'bearer')) ? header.slice(7) : null;
  if (key === null || !API_KEY_RE.test(key)) {
    throw new AppError('auth.invalid_api_key', 'Provide a valid API key as "Authorization: Bearer pk_test_..." or "pk_live_...".');
  }
  const found = find(hashApiKey(key));
  return isThenable(found) ? Promise.resolve(found).then(callerOf) : callerOf(found);
}

function callerOf(found: ActiveKey | null): Caller {
  if (!found) throw new AppError('auth.invalid_api_key', 'This API key is not valid (unknown or revoked).');
  return { accountId: found.accountId, mode: found.mode, plan: found.plan, keyId: found.keyId };
}

/** A promise or any thenable (a PostgreSQL query) rather than the key itself. */
export const isThenable = <T>(v: T | PromiseLike<T>): v is PromiseLike<T> => typeof (v as PromiseLike<T> | null)?.then === 'function';
