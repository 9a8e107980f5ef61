// `webhooks rotate-secret`: a new secret for an account's endpoint. The previous one keeps
// signing (second entry of webhook-signature) for webhooks.rotationOverlapSeconds so receivers
// can switch without dropping deliveries; X-PF-Signature uses the new one at once.
import type { Config } from '../config.types';
import { AppError } from '../domain/errors';
import type { Mode } from '../domain/intent';
import type { Db } from '../store/db';
import { accountExists, getEndpoint } from './endpoints';
import { newSecret } from './sign';

export interface RotateSecretInput {
  accountId: string;
  mode: Mode;
}

export function rotateSecret(db: Db, cfg: Config, input: RotateSecretInput, deps: { now?: () => number } = {}): { secret: string } {
  if (!accountExists(db, input.accountId))
    throw new AppError('account.not_found', `No account ${input.accountId}`, { param: 'account' });
  const now = (deps.now ?? Date.now)();
  return db.sqlite
    .transaction(() => {
      const existing = getEndpoint(db, input.accountId, input.mode);
      if (!existing)
        throw new AppError('webhook.not_found', `No ${input.mode} webhook endpoint for account ${input.accountId}; set one first`);
      // One previous secret only: rotating twice inside the overlap retires the oldest at once.
      const secret = newSecret();
      db.sqlite
        .query(
          `UPDATE webhook_endpoints SET secret = ?, previous_secret = ?, previous_secret_expires_at = ?, updated_at = ?
            WHERE account_id = ? AND mode = ?`,
        )
        .run(secret, existing.secret, now + cfg.webhooks.rotationOverlapSeconds * 1000, now, input.accountId, input.mode);
      return { secret };
    })
    .immediate();
}
