// `webhooks rotate-secret`: a new secret for an account's endpoint. The previous one keeps
// signing (second entry of webhook-signature) for webhooks.rotationOverlapSeconds so receivers
// can switch without dropping deliveries; X-PF-Signature uses the new one at once.
import type { Owner } from '../domain/caller';
import { AppError } from '../domain/errors';
import type { WebhookServices } from './services';
import { newSecret } from './sign';

/** No input beyond whose endpoint: the secret is always a fresh random one. */
export async function rotateSecret(s: WebhookServices, owner: Owner): Promise<{ secret: string }> {
  const { accountId, mode } = owner;
  if (!(await s.accounts.get(accountId))) throw new AppError('account.not_found', `No account ${accountId}`, { param: 'account' });
  const now = (s.now ?? Date.now)();
  const secret = newSecret();
  const previousExpiresAt = now + s.config.webhooks.rotationOverlapSeconds * 1000;
  if (!(await s.endpoints.rotateSecret({ accountId, mode, secret, previousExpiresAt, now })))
    throw new AppError('webhook.not_found', `No ${mode} webhook endpoint for account ${accountId}; set one first`);
  return { secret };
}
