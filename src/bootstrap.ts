// First run on an empty database: account `default` (plan pro) with one test key, so a
// newcomer can curl at once. startServer calls it when serve runs with --bootstrap.
import type { Db } from './store/db';
import { createAccount, listAccounts } from './store/accounts';
import { createApiKey } from './store/api-keys';

export function bootstrapIfEmpty(db: Db): { accountId: string; testKey: string } | null {
  // IMMEDIATE: two processes bootstrapping the same file at once create one account, not two.
  return db.sqlite
    .transaction(() => {
      if (listAccounts(db).length > 0) return null;
      const account = createAccount(db, { name: 'default', plan: 'pro' });
      const { key } = createApiKey(db, { accountId: account.id, mode: 'test' });
      return { accountId: account.id, testKey: key };
    })
    .immediate();
}
