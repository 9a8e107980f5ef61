// First run on an empty database: account `default` (plan pro) with one test key, so a
// newcomer can curl at once. startServer calls it when serve runs with --bootstrap.
import type { Store } from './store/store';

export function bootstrapIfEmpty(store: Pick<Store, 'transact'>): Promise<{ accountId: string; testKey: string } | null> {
  // One transaction, bootstraps taking turns (BEGIN IMMEDIATE on SQLite, an advisory lock on
  // PostgreSQL): instances bootstrapping one database at once create one account, not several.
  return store.transact(async ({ accounts, apiKeys }) => {
    await accounts.lockBootstrap();
    if ((await accounts.list()).length > 0) return null;
    const account = await accounts.create({ name: 'default', plan: 'pro' });
    const { key } = await apiKeys.create({ accountId: account.id, mode: 'test' });
    return { accountId: account.id, testKey: key };
  });
}
