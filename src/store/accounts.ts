// Accounts: the tenant that owns keys, intents and webhook endpoints. Plans gate pro features.
import { AppError } from '../domain/errors';
import { newId } from '../domain/ids';
import type { Db } from './db';
import { forgetKeys } from './api-key-lookup';
import type { Awaitable, Sync } from './awaitable';

export type Plan = 'free' | 'pro';
export const PLANS: readonly Plan[] = ['free', 'pro'];

export interface Account {
  id: string;
  name: string;
  plan: Plan;
  createdAt: number;
}

const COLUMNS = 'id, name, plan, created_at AS createdAt';

export function createAccount(db: Db, input: { name: string; plan?: Plan }): Account {
  const name = input.name.trim();
  if (!name) throw new AppError('request.invalid_param', 'name must not be empty', { param: 'name' });
  const plan = input.plan ?? 'free';
  if (!PLANS.includes(plan)) throw new AppError('request.invalid_param', 'plan must be free or pro', { param: 'plan' });
  const account: Account = { id: newId('acct'), name, plan, createdAt: Date.now() };
  db.sqlite.query('INSERT INTO accounts (id, name, plan, created_at) VALUES (?, ?, ?, ?)').run(account.id, name, plan, account.createdAt);
  return account;
}

export function getAccount(db: Db, id: string): Account | null {
  return db.sqlite.query<Account, [string]>(`SELECT ${COLUMNS} FROM accounts WHERE id = ?`).get(id);
}

/** Oldest first: the operator's list is short and reads best in creation order. */
export function listAccounts(db: Db): Account[] {
  return db.sqlite.query<Account, []>(`SELECT ${COLUMNS} FROM accounts ORDER BY created_at, id`).all();
}

/** Change an account's plan; refunds and webhook retry follow it on the next request. */
export function setAccountPlan(db: Db, id: string, plan: Plan): Account {
  if (!PLANS.includes(plan)) throw new AppError('request.invalid_param', 'plan must be free or pro', { param: 'plan' });
  db.sqlite.query('UPDATE accounts SET plan = ? WHERE id = ?').run(plan, id);
  // A key's look-up carries its account's plan: remembered answers of this connection are stale.
  forgetKeys(db);
  const account = getAccount(db, id);
  if (!account) throw new AppError('account.not_found', `no account ${id}`, { param: 'account' });
  return account;
}

/** The accounts aggregate as the web surfaces and webhook verbs read it (no raw Db beyond the store). */
export interface AccountRepo {
  get(id: string): Awaitable<Account | null>;
  list(): Awaitable<Account[]>;
  create(input: { name: string; plan?: Plan }): Awaitable<Account>;
  setPlan(id: string, plan: Plan): Awaitable<Account>;
  /**
   * Inside a transaction: make first-run bootstraps take turns until it ends, so the one that
   * finds no account is the only one. SQLite: nothing to take (a write transaction already holds
   * the file's one write lock). PostgreSQL: a transaction-level advisory lock (under READ
   * COMMITTED two instances would both read no account and both create `default`).
   */
  lockBootstrap(): Awaitable<void>;
}

export function createAccountRepo(db: Db): Sync<AccountRepo> {
  return {
    get: (id) => getAccount(db, id),
    list: () => listAccounts(db),
    create: (input) => createAccount(db, input),
    setPlan: (id, plan) => setAccountPlan(db, id, plan),
    lockBootstrap: () => {},
  };
}
