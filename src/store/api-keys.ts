// API keys: `pk_<mode>_` + 32 base62 chars, shown once and stored only as SHA-256 hex + last4.
// findActiveKeyByHash is on every request's path: a prepared statement and a cache of its answers.
import { AppError } from '../domain/errors';
import { newId, randomBase62 } from '../domain/ids';
import type { Mode } from '../domain/intent';
import { getAccount } from './accounts';
import type { Db } from './db';
import type { Awaitable, Sync } from './awaitable';
import { findActiveKeyByHash, forgetKeys, type ActiveKey } from './api-key-lookup';

export { findActiveKeyByHash, type ActiveKey };

export const API_KEY_RE = /^pk_(test|live)_[0-9A-Za-z]{32}$/;

export interface ApiKeyInfo {
  id: string;
  accountId: string;
  mode: Mode;
  last4: string;
  createdAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

// Never the hash: what a key's owner may see about it.
const INFO_COLUMNS = `id, account_id AS accountId, mode, last4, created_at AS createdAt, revoked_at AS revokedAt,
  last_used_at AS lastUsedAt`;

/** SHA-256 hex of the key (Bun's one-shot hash: ~2x cheaper than node:crypto's createHash; once per request). */
export function hashApiKey(key: string): string {
  return Bun.SHA256.hash(key, 'hex') as string;
}

export function createApiKey(db: Db, input: { accountId: string; mode: Mode }): { key: string; id: string; last4: string } {
  if (input.mode !== 'test' && input.mode !== 'live') {
    throw new AppError('request.invalid_param', 'mode must be test or live', { param: 'mode' });
  }
  if (!getAccount(db, input.accountId)) {
    throw new AppError('account.not_found', `no account ${input.accountId}`, { param: 'account' });
  }
  const key = `pk_${input.mode}_${randomBase62(32)}`;
  const id = newId('key');
  const last4 = key.slice(-4);
  db.sqlite
    .query('INSERT INTO api_keys (id, account_id, mode, hash, last4, created_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(id, input.accountId, input.mode, hashApiKey(key), last4, Date.now());
  return { key, id, last4 };
}

/** Revoke by the key itself or its id. Revoking twice keeps the first revocation time. */
export function revokeApiKey(db: Db, keyOrId: string): ApiKeyInfo {
  const [column, value] = keyOrId.startsWith('pk_') ? ['hash', hashApiKey(keyOrId)] : ['id', keyOrId];
  db.sqlite.query(`UPDATE api_keys SET revoked_at = ? WHERE ${column} = ? AND revoked_at IS NULL`).run(Date.now(), value);
  forgetKeys(db);
  const row = db.sqlite.query<ApiKeyInfo, [string]>(`SELECT ${INFO_COLUMNS} FROM api_keys WHERE ${column} = ?`).get(value);
  if (!row) throw new AppError('key.not_found', 'no such API key', { param: 'key' });
  return row;
}

export function listApiKeys(db: Db, accountId: string): ApiKeyInfo[] {
  return db.sqlite
    .query<ApiKeyInfo, [string]>(`SELECT ${INFO_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at, id`)
    .all(accountId);
}

/** Record when keys were last used: one short transaction for a batch of uses. */
export function touchApiKeys(db: Db, uses: ReadonlyMap<string, number>): void {
  if (uses.size === 0) return;
  const touch = db.sqlite.prepare<unknown, [number, string]>('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  db.sqlite.transaction(() => {
    for (const [id, at] of uses) touch.run(at, id);
  })();
}

/** The account a key id belongs to (revoked or not), or null when there is no such key. */
export function apiKeyAccountId(db: Db, keyId: string): string | null {
  return db.sqlite.query<{ accountId: string }, [string]>('SELECT account_id AS accountId FROM api_keys WHERE id = ?').get(keyId)?.accountId ?? null;
}

/** The API keys aggregate: authentication (compose), the dashboard's key pages. */
export interface ApiKeyRepo {
  findActiveByHash(sha256hex: string): Awaitable<ActiveKey | null>;
  touch(uses: ReadonlyMap<string, number>): Awaitable<void>;
  list(accountId: string): Awaitable<ApiKeyInfo[]>;
  create(input: { accountId: string; mode: Mode }): Awaitable<{ key: string; id: string; last4: string }>;
  revoke(keyOrId: string): Awaitable<ApiKeyInfo>;
  /** The account a key id belongs to (revoked or not), or null. */
  accountOf(keyId: string): Awaitable<string | null>;
}

export function createApiKeyRepo(db: Db): Sync<ApiKeyRepo> {
  return {
    findActiveByHash: (h) => findActiveKeyByHash(db, h),
    touch: (uses) => touchApiKeys(db, uses),
    list: (accountId) => listApiKeys(db, accountId),
    create: (input) => createApiKey(db, input),
    revoke: (keyOrId) => revokeApiKey(db, keyOrId),
    accountOf: (keyId) => apiKeyAccountId(db, keyId),
  };
}
