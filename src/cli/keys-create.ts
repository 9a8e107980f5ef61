// `payforge keys create [--account acct_…] --mode test|live`: the key is printed once, stored hashed.
import { accountOf, configFrom, oneOf, parse, print, required, withStore } from './common';

export async function keysCreate(argv: string[]): Promise<void> {
  const { values } = parse(argv, { account: { type: 'string' }, mode: { type: 'string' } });
  const mode = oneOf(required(values, 'mode'), 'mode', ['test', 'live'] as const);
  const { key, id, account } = await withStore(configFrom(values), async ({ repos }) => {
    const account = await accountOf(repos, values);
    return { ...(await repos.apiKeys.create({ accountId: account, mode })), account };
  });
  print({ key, id, account, mode });
}
