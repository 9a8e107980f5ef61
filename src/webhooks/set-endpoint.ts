// `webhooks set-endpoint`: set (or change) the one endpoint URL of an account and mode.
// The secret is created on the first set and kept on later sets, so changing the URL does not
// break receivers already verifying; rotate-secret is the one way to change it.
import type { Owner } from '../domain/caller';
import { AppError } from '../domain/errors';
import type { WebhookServices } from './services';
import { newSecret } from './sign';
import { assertEndpointAllowed } from './url-policy';

export interface SetEndpointResult {
  /** The URL as stored (WHATWG-normalized, e.g. a bare origin gains its trailing slash). */
  url: string;
  secret: string;
}

export async function setEndpoint(s: WebhookServices, owner: Owner, input: { url: string }): Promise<SetEndpointResult> {
  if (!(await s.accounts.get(owner.accountId))) throw new AppError('account.not_found', `No account ${owner.accountId}`, { param: 'account' });
  // DNS first, outside any transaction: the write below stays short and synchronous.
  const url = (await assertEndpointAllowed(input.url, { mode: owner.mode, allowPrivateUrls: s.config.webhooks.allowPrivateUrls }, s.lookup)).href;
  const now = (s.now ?? Date.now)();
  return s.endpoints.saveUrl({ accountId: owner.accountId, mode: owner.mode, url, now, newSecret });
}
