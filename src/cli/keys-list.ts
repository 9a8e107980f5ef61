// `payforge keys list [--account acct_…] [--json]`: the account's keys with a recognisable
// prefix, never the secret (only its hash is stored). lastUsedAt is flushed every ~30 s.
import { AppError } from '../domain/errors';
import { accountOf, configFrom, isoOrNull, parse, print, withStore } from './common';

export async function keysList(argv: string[]): Promise<void> {
  const { values } = parse(argv, { account: { type: 'string' }, json: { type: 'boolean' } });
  const keys = await withStore(configFrom(values), async ({ repos }) => {
    const account = await accountOf(repos, values);
    if (!(await repos.accounts.get(account))) throw new AppError('account.not_found', `no account ${account}`, { param: 'account' });
    return repos.apiKeys.list(account);
  });
  print(
    keys.map((k) => ({
      id: k.id,
      account: k.accountId,
      mode: k.mode,
      prefix: `pk_${k.mode}_…${k.last4}`,
      createdAt: isoOrNull(k.createdAt),
      lastUsedAt: isoOrNull(k.lastUsedAt),
      revokedAt: isoOrNull(k.revokedAt),
    })),
  );
}
