// `webhooks set-endpoint`: set (or change) the one endpoint URL of an account and mode.
// The secret is created on the first set and kept on later sets, so changing the URL does not
// break receivers already verifying; rotate-secret is the one way to change it.
import type { Config } from '../config.types';
import { AppError } from '../domain/errors';
import type { Mode } from '../domain/intent';
import type { Repos } from '../store/repos';
import { newSecret } from './sign';
import { assertEndpointAllowed, type Lookup } from './url-policy';

export interface SetEndpointInput {
  accountId: string;
  mode: Mode;
  url: string;
}

export interface SetEndpointResult {
  /** The URL as stored (WHATWG-normalized, e.g. a bare origin gains its trailing slash). */
  url: string;
  secret: string;
}

export async function setEndpoint(
  repos: Pick<Repos, 'accounts' | 'endpoints'>,
  cfg: Config,
  input: SetEndpointInput,
  deps: { lookup?: Lookup; now?: () => number } = {},
): Promise<SetEndpointResult> {
  if (!repos.accounts.get(input.accountId))
    throw new AppError('account.not_found', `No account ${input.accountId}`, { param: 'account' });
  // DNS first, outside any transaction: the write below stays short and synchronous.
  const url = (
    await assertEndpointAllowed(input.url, { mode: input.mode, allowPrivateUrls: cfg.webhooks.allowPrivateUrls }, deps.lookup)
  ).href;
  const now = (deps.now ?? Date.now)();
  return repos.endpoints.saveUrl({ accountId: input.accountId, mode: input.mode, url, now, newSecret });
}
