// API keys on PostgreSQL, as ../api-keys.ts: stored as SHA-256 hex + last4, revocation keeps
// the first time, findActiveByHash is one statement on every request's path.
import { AppError } from '../../domain/errors';
import { newId, randomBase62 } from '../../domain/ids';
import type { Mode } from '../../domain/intent';
import { type ActiveKey, type ApiKeyInfo, type ApiKeyRepo, hashApiKey } from '../api-keys';
import { getAccount } from './accounts';
import { type Async, first, hasNul, numbers, type Pg, type Row, rows } from './sql';

const INFO_COLUMNS = `id, account_id AS "accountId", mode, last4, created_at AS "createdAt", revoked_at AS "revokedAt",
  last_used_at AS "lastUsedAt"`;
const TIMES = ['createdAt', 'revokedAt', 'lastUsedAt'];
const info = (r: Row) => numbers<ApiKeyInfo>([r], TIMES)[0]!;

export async function createApiKey(q: Pg, input: { accountId: string; mode: Mode }): Promise<{ key: string; id: string; last4: string }> {
  if (input.mode !== 'test' && input.mode !== 'live') {
    throw new AppError('request.invalid_param', 'mode must be test or live', { param: 'mode' });
  }
  if (!(await getAccount(q, input.accountId))) {
    throw new AppError('account.not_found', `no account ${input.accountId}`, { param: 'account' });
  }
  const key = `pk_${input.mode}_${randomBase62(32)}`;
  const id = newId('key');
  const last4 = key.slice(-4);
  await q.unsafe('INSERT INTO api_keys (id, account_id, mode, hash, last4, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    id, input.accountId, input.mode, hashApiKey(key), last4, Date.now(),
  ]);
  return { key, id, last4 };
}

/** Revoke by the key itself or its id; revoking twice keeps the first time (one statement). */
export async function revokeApiKey(q: Pg, keyOrId: string): Promise<ApiKeyInfo> {
  const [column, value] = keyOrId.startsWith('pk_') ? ['hash', hashApiKey(keyOrId)] : ['id', keyOrId];
  const r = hasNul([value]) ? null : await first(q, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE ${column} = $2 RETURNING ${INFO_COLUMNS}`, [
    Date.now(), value,
  ]);
  if (!r) throw new AppError('key.not_found', 'no such API key', { param: 'key' });
  return info(r);
}

export async function listApiKeys(q: Pg, accountId: string): Promise<ApiKeyInfo[]> {
  return numbers<ApiKeyInfo>(await rows(q, `SELECT ${INFO_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id COLLATE "C"`, [accountId]), TIMES);
}

/** Record when keys were last used: one statement for a batch of uses. */
export async function touchApiKeys(q: Pg, uses: ReadonlyMap<string, number>): Promise<void> {
  if (uses.size === 0) return;
  await q.unsafe('UPDATE api_keys k SET last_used_at = u.at FROM unnest($1::text[], $2::bigint[]) AS u(id, at) WHERE k.id = u.id', [
    [...uses.keys()], [...uses.values()],
  ]);
}

export async function findActiveKeyByHash(q: Pg, sha256hex: string): Promise<ActiveKey | null> {
  const found = await first<ActiveKey>(
    q,
    `SELECT k.id AS "keyId", k.account_id AS "accountId", k.mode AS mode, a.plan AS plan
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.hash = $1 AND k.revoked_at IS NULL`,
    [sha256hex],
  );
  return found && found.plan ? found : null;
}

export async function apiKeyAccountId(q: Pg, keyId: string): Promise<string | null> {
  return (await first<{ accountId: string }>(q, 'SELECT account_id AS "accountId" FROM api_keys WHERE id = $1', [keyId]))?.accountId ?? null;
}

export function createPgApiKeyRepo(q: Pg): Async<ApiKeyRepo> {
  return {
    findActiveByHash: (h) => findActiveKeyByHash(q, h),
    touch: (uses) => touchApiKeys(q, uses),
    list: (accountId) => listApiKeys(q, accountId),
    create: (input) => createApiKey(q, input),
    revoke: (keyOrId) => revokeApiKey(q, keyOrId),
    accountOf: (keyId) => apiKeyAccountId(q, keyId),
  };
}
