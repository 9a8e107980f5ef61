// `payforge keys create [--account acct_…] --mode test|live`: the key is printed once, stored hashed.
import { createApiKey } from '../store/api-keys';
import { accountOf, configFrom, oneOf, parse, print, required, withDb } from './common';

export async function keysCreate(argv: string[]): Promise<void> {
  const { values } = parse(argv, { account: { type: 'string' }, mode: { type: 'string' } });
  const mode = oneOf(required(values, 'mode'), 'mode', ['test', 'live'] as const);
  const { key, id, account } = await withDb(configFrom(values), (db) => {
    const account = accountOf(db, values);
    return { ...createApiKey(db, { accountId: account, mode }), account };
  });
  print({ key, id, account, mode });
}
