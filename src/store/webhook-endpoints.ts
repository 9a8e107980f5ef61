// Webhook endpoint rows: one per account and mode, holding the URL and the signing secrets
// (the current one and, during a rotation's overlap, the previous one).
import type { Mode } from '../domain/intent';
import type { Db } from './db';
import type { Awaitable, Sync } from './awaitable';
import { forgetEndpoints } from './outbox';

export interface EndpointRow {
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
}

/** An endpoint as the operator's page lists it: never its secrets. */
export interface EndpointInfo {
  mode: Mode;
  url: string;
  updatedAt: number;
  rotating: boolean;
}

export function getEndpoint(db: Db, accountId: string, mode: Mode): EndpointRow | null {
  return db.sqlite
    .query<EndpointRow, [string, string]>(
      `SELECT url, secret, previous_secret AS previousSecret, previous_secret_expires_at AS previousSecretExpiresAt
         FROM webhook_endpoints WHERE account_id = ? AND mode = ?`,
    )
    .get(accountId, mode);
}

/** An account's endpoints without their secrets (those are read only when revealed). */
export function listEndpointInfo(db: Db, accountId: string, now: number): EndpointInfo[] {
  return db.sqlite
    .query<{ mode: Mode; url: string; updatedAt: number; prevExp: number | null }, [string]>(
      `SELECT mode, url, updated_at AS updatedAt, previous_secret_expires_at AS prevExp
         FROM webhook_endpoints WHERE account_id = ? ORDER BY mode`,
    )
    .all(accountId)
    .map((r) => ({ mode: r.mode, url: r.url, updatedAt: r.updatedAt, rotating: r.prevExp !== null && r.prevExp > now }));
}

/**
 * Point the endpoint at `url`. An existing endpoint keeps its secret (receivers already verifying
 * keep working); a new one gets `newSecret()`. Returns the secret now in force.
 */
export function saveEndpointUrl(
  db: Db,
  input: { accountId: string; mode: Mode; url: string; now: number; newSecret: () => string },
): { url: string; secret: string } {
  const { accountId, mode, url, now } = input;
  // The outbox remembers URLs; another connection's write it sees by the count of endpoint writes.
  forgetEndpoints(db.sqlite);
  return db.sqlite
    .transaction(() => {
      const existing = getEndpoint(db, accountId, mode);
      if (existing) {
        db.sqlite
          .query('UPDATE webhook_endpoints SET url = ?, updated_at = ? WHERE account_id = ? AND mode = ?')
          .run(url, now, accountId, mode);
        return { url, secret: existing.secret };
      }
      const secret = input.newSecret();
      db.sqlite
        .query(
          `INSERT INTO webhook_endpoints (account_id, mode, url, secret, previous_secret, previous_secret_expires_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, NULL, NULL, ?, ?)`,
        )
        .run(accountId, mode, url, secret, now, now);
      return { url, secret };
    })
    .immediate();
}

/**
 * Make `secret` the current one; the one it replaces keeps signing until `previousExpiresAt`.
 * One previous secret only: rotating twice inside the overlap retires the oldest at once.
 * Returns false when the account has no endpoint in this mode.
 */
export function rotateEndpointSecret(
  db: Db,
  input: { accountId: string; mode: Mode; secret: string; previousExpiresAt: number; now: number },
): boolean {
  // One statement: SQLite reads `secret` on the right-hand side before the row is updated.
  const res = db.sqlite
    .query(
      `UPDATE webhook_endpoints SET previous_secret = secret, secret = ?, previous_secret_expires_at = ?, updated_at = ?
        WHERE account_id = ? AND mode = ?`,
    )
    .run(input.secret, input.previousExpiresAt, input.now, input.accountId, input.mode);
  return res.changes > 0;
}

/** Point an endpoint back at `url` (listen restores what it replaced), or remove it (null). */
export function restoreEndpoint(db: Db, accountId: string, mode: Mode, url: string | null, now: number): void {
  forgetEndpoints(db.sqlite);
  if (url === null) db.sqlite.query('DELETE FROM webhook_endpoints WHERE account_id = ? AND mode = ?').run(accountId, mode);
  else
    db.sqlite
      .query('UPDATE webhook_endpoints SET url = ?, updated_at = ? WHERE account_id = ? AND mode = ?')
      .run(url, now, accountId, mode);
}

/** The webhook endpoints aggregate (one endpoint per account and mode). */
export interface WebhookEndpointRepo {
  get(accountId: string, mode: Mode): Awaitable<EndpointRow | null>;
  listInfo(accountId: string, now: number): Awaitable<EndpointInfo[]>;
  saveUrl(input: Parameters<typeof saveEndpointUrl>[1]): Awaitable<{ url: string; secret: string }>;
  rotateSecret(input: Parameters<typeof rotateEndpointSecret>[1]): Awaitable<boolean>;
  /** Put the URL back as it was (null: remove the endpoint): `payforge listen` on exit. */
  restore(accountId: string, mode: Mode, url: string | null, now: number): Awaitable<void>;
}

export function createWebhookEndpointRepo(db: Db): Sync<WebhookEndpointRepo> {
  return {
    get: (accountId, mode) => getEndpoint(db, accountId, mode),
    listInfo: (accountId, now) => listEndpointInfo(db, accountId, now),
    saveUrl: (input) => saveEndpointUrl(db, input),
    rotateSecret: (input) => rotateEndpointSecret(db, input),
    restore: (accountId, mode, url, now) => restoreEndpoint(db, accountId, mode, url, now),
  };
}
