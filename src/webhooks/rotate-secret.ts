// `webhooks rotate-secret`: a new secret for an account's endpoint. The previous one keeps
// signing (second entry of webhook-signature) for webhooks.rotationOverlapSeconds so receivers
// can switch without dropping deliveries; X-PF-Signature uses the new one at once.
import type { Config } from '../config.types';
import { AppError } from '../domain/errors';
import type { Mode } from '../domain/intent';
import type { Repos } from '../store/repos';
import { newSecret } from './sign';

export interface RotateSecretInput {
  accountId: string;
  mode: Mode;
}

export function rotateSecret(repos: Pick<Repos, 'accounts' | 'endpoints'>, cfg: Config, input: RotateSecretInput, deps: { now?: () => number } = {}): { secret: string } {
  if (!repos.accounts.get(input.accountId))
    throw new AppError('account.not_found', `No account ${input.accountId}`, { param: 'account' });
  const now = (deps.now ?? Date.now)();
  const secret = newSecret();
  const previousExpiresAt = now + cfg.webhooks.rotationOverlapSeconds * 1000;
  if (!repos.endpoints.rotateSecret({ accountId: input.accountId, mode: input.mode, secret, previousExpiresAt, now }))
    throw new AppError('webhook.not_found', `No ${input.mode} webhook endpoint for account ${input.accountId}; set one first`);
  return { secret };
}
