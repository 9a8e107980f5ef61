// Webhook endpoint rows on PostgreSQL, as ../webhook-endpoints.ts: one per account and mode,
// the URL and the signing secrets (current, and the previous one during a rotation's overlap).
import type { Mode } from '../../domain/intent';
import type { EndpointInfo, EndpointRow, WebhookEndpointRepo } from '../webhook-endpoints';
import { type Async, changes, first, num, numOrNull, type Pg, rows } from './sql';

export async function getEndpoint(q: Pg, accountId: string, mode: Mode): Promise<EndpointRow | null> {
  const r = await first<EndpointRow>(
    q,
    `SELECT url, secret, previous_secret AS "previousSecret", previous_secret_expires_at AS "previousSecretExpiresAt"
       FROM webhook_endpoints WHERE account_id = $1 AND mode = $2`,
    [accountId, mode],
  );
  return r ? { ...r, previousSecretExpiresAt: numOrNull(r.previousSecretExpiresAt) } : null;
}

export async function listEndpointInfo(q: Pg, accountId: string, now: number): Promise<EndpointInfo[]> {
  const list = await rows<{ mode: Mode; url: string; updatedAt: string; prevExp: string | null }>(
    q,
    `SELECT mode, url, updated_at AS "updatedAt", previous_secret_expires_at AS "prevExp"
       FROM webhook_endpoints WHERE account_id = $1 ORDER BY mode`,
    [accountId],
  );
  return list.map((r) => ({ mode: r.mode, url: r.url, updatedAt: num(r.updatedAt), rotating: r.prevExp !== null && num(r.prevExp) > now }));
}

/**
 * Point the endpoint at `url`. An existing endpoint keeps its secret; a new one gets
 * `newSecret()` (called only then). Returns the secret now in force. The insert resolves a
 * concurrent creation by another instance on the primary key: the first secret stays.
 */
export async function saveEndpointUrl(
  q: Pg,
  input: { accountId: string; mode: Mode; url: string; now: number; newSecret: () => string },
): Promise<{ url: string; secret: string }> {
  const { accountId, mode, url, now } = input;
  const updated = await first<{ secret: string }>(
    q,
    'UPDATE webhook_endpoints SET url = $1, updated_at = $2 WHERE account_id = $3 AND mode = $4 RETURNING secret',
    [url, now, accountId, mode],
  );
  if (updated) return { url, secret: updated.secret };
  const inserted = await first<{ secret: string }>(
    q,
    `INSERT INTO webhook_endpoints (account_id, mode, url, secret, previous_secret, previous_secret_expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, NULL, NULL, $5, $5)
     ON CONFLICT (account_id, mode) DO UPDATE SET url = excluded.url, updated_at = excluded.updated_at RETURNING secret`,
    [accountId, mode, url, input.newSecret(), now],
  );
  return { url, secret: inserted!.secret };
}

/** Make `secret` the current one; the replaced one signs until `previousExpiresAt`. False: no endpoint. */
export async function rotateEndpointSecret(
  q: Pg,
  input: { accountId: string; mode: Mode; secret: string; previousExpiresAt: number; now: number },
): Promise<boolean> {
  // PostgreSQL reads `secret` on the right-hand side from the row before the update.
  const n = await changes(
    q,
    `UPDATE webhook_endpoints SET previous_secret = secret, secret = $1, previous_secret_expires_at = $2, updated_at = $3
      WHERE account_id = $4 AND mode = $5`,
    [input.secret, input.previousExpiresAt, input.now, input.accountId, input.mode],
  );
  return n > 0;
}

/** Point an endpoint back at `url` (listen restores what it replaced), or remove it (null). */
export async function restoreEndpoint(q: Pg, accountId: string, mode: Mode, url: string | null, now: number): Promise<void> {
  if (url === null) await q.unsafe('DELETE FROM webhook_endpoints WHERE account_id = $1 AND mode = $2', [accountId, mode]);
  else await q.unsafe('UPDATE webhook_endpoints SET url = $1, updated_at = $2 WHERE account_id = $3 AND mode = $4', [url, now, accountId, mode]);
}

export function createPgWebhookEndpointRepo(q: Pg): Async<WebhookEndpointRepo> {
  return {
    get: (accountId, mode) => getEndpoint(q, accountId, mode),
    listInfo: (accountId, now) => listEndpointInfo(q, accountId, now),
    saveUrl: (input) => saveEndpointUrl(q, input),
    rotateSecret: (input) => rotateEndpointSecret(q, input),
    restore: (accountId, mode, url, now) => restoreEndpoint(q, accountId, mode, url, now),
  };
}
