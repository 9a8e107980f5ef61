// First run on an empty database: account `default` (plan pro) with one test key, so a
// newcomer can curl at once. startServer calls it when serve runs with --bootstrap.
import type { Store } from './store/store';

export function bootstrapIfEmpty(store: Pick<Store, 'transact'>): Promise<{ accountId: string; testKey: string } | null> {
  // One transaction (BEGIN IMMEDIATE on SQLite): two processes bootstrapping the same file at
  // once create one account, not two.
  return store.transact(async ({ accounts, apiKeys }) => {
    if ((await accounts.list()).length > 0) return null;
    const account = await accounts.create({ name: 'default', plan: 'pro' });
    const { key } = await apiKeys.create({ accountId: account.id, mode: 'test' });
    return { accountId: account.id, testKey: key };
  });
}
