// Accounts: the tenant that owns keys, intents and webhook endpoints. Plans gate pro features.
import { asc, eq } from 'drizzle-orm';
import { AppError } from '../domain/errors';
import { newId } from '../domain/ids';
import type { Db } from './db';
import { accounts } from './schema';

export type Plan = 'free' | 'pro';
export const PLANS: readonly Plan[] = ['free', 'pro'];

export interface Account {
  id: string;
  name: string;
  plan: Plan;
  createdAt: number;
}

export function createAccount(db: Db, input: { name: string; plan?: Plan }): Account {
  const name = input.name.trim();
  if (!name) throw new AppError('request.invalid_param', 'name must not be empty', { param: 'name' });
  const plan = input.plan ?? 'free';
  if (!PLANS.includes(plan)) throw new AppError('request.invalid_param', 'plan must be free or pro', { param: 'plan' });
  const account: Account = { id: newId('acct'), name, plan, createdAt: Date.now() };
  db.orm.insert(accounts).values(account).run();
  return account;
}

export function getAccount(db: Db, id: string): Account | null {
  return (db.orm.select().from(accounts).where(eq(accounts.id, id)).get() as Account | undefined) ?? null;
}

/** Oldest first: the operator's list is short and reads best in creation order. */
export function listAccounts(db: Db): Account[] {
  return db.orm.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.id)).all() as Account[];
}

/** Change an account's plan; refunds and webhook retry follow it on the next request. */
export function setAccountPlan(db: Db, id: string, plan: Plan): Account {
  if (!PLANS.includes(plan)) throw new AppError('request.invalid_param', 'plan must be free or pro', { param: 'plan' });
  db.orm.update(accounts).set({ plan }).where(eq(accounts.id, id)).run();
  const account = getAccount(db, id);
  if (!account) throw new AppError('account.not_found', `no account ${id}`, { param: 'account' });
  return account;
}
