// Reading an account's webhook endpoint row (one per account and mode), shared by the
// set-endpoint, rotate-secret, retry and dispatch paths. Raw prepared SQL: hot and tiny.
import type { Db } from '../store/db';
import type { Mode } from '../domain/intent';

export interface EndpointRow {
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
}

export function getEndpoint(db: Db, accountId: string, mode: Mode): EndpointRow | null {
  return db.sqlite
    .query<EndpointRow, [string, string]>(
      `SELECT url, secret, previous_secret AS previousSecret, previous_secret_expires_at AS previousSecretExpiresAt
         FROM webhook_endpoints WHERE account_id = ? AND mode = ?`,
    )
    .get(accountId, mode);
}

/** The secrets that sign now: the current one first, the previous one while its overlap lasts. */
export function activeSecrets(e: EndpointRow, now: number): string[] {
  return e.previousSecret !== null && e.previousSecretExpiresAt !== null && e.previousSecretExpiresAt > now
    ? [e.secret, e.previousSecret]
    : [e.secret];
}

export function accountExists(db: Db, accountId: string): boolean {
  return db.sqlite.query<{ one: number }, [string]>('SELECT 1 AS one FROM accounts WHERE id = ?').get(accountId) !== null;
}
