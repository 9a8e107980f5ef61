// Accounts on PostgreSQL, as ../accounts.ts (the same validation and the same errors).
import { AppError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { type Account, type AccountRepo, type Plan, PLANS } from '../accounts';
import { type Async, first, numbers, type Pg, type Row, rows } from './sql';

const COLUMNS = 'id, name, plan, created_at AS "createdAt"';
const account = (r: Row | null) => (r ? numbers<Account>([r], ['createdAt'])[0]! : null);

export async function createAccount(q: Pg, input: { name: string; plan?: Plan }): Promise<Account> {
  const name = input.name.trim();
  if (!name) throw new AppError('request.invalid_param', 'name must not be empty', { param: 'name' });
  const plan = input.plan ?? 'free';
  if (!PLANS.includes(plan)) throw new AppError('request.invalid_param', 'plan must be free or pro', { param: 'plan' });
  const a: Account = { id: newId('acct'), name, plan, createdAt: Date.now() };
  await q.unsafe('INSERT INTO accounts (id, name, plan, created_at) VALUES ($1, $2, $3, $4)', [a.id, name, plan, a.createdAt]);
  return a;
}

export async function getAccount(q: Pg, id: string): Promise<Account | null> {
  return account(await first(q, `SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [id]));
}

/** Oldest first (ties by id in byte order, as SQLite compares text). */
export async function listAccounts(q: Pg): Promise<Account[]> {
  return numbers<Account>(await rows(q, `SELECT ${COLUMNS} FROM accounts ORDER BY created_at, id COLLATE "C"`), ['createdAt']);
}

export async function setAccountPlan(q: Pg, id: string, plan: Plan): Promise<Account> {
  if (!PLANS.includes(plan)) throw new AppError('request.invalid_param', 'plan must be free or pro', { param: 'plan' });
  const a = account(await first(q, `UPDATE accounts SET plan = $1 WHERE id = $2 RETURNING ${COLUMNS}`, [plan, id]));
  if (!a) throw new AppError('account.not_found', `no account ${id}`, { param: 'account' });
  return a;
}

/** Any key shared by every PayForge instance, other than migrate's: "PFbootst". */
const BOOTSTRAP_LOCK = 0x5046_626f_6f74_7374n;

export function createPgAccountRepo(q: Pg): Async<AccountRepo> & {
  create(input: { name: string; plan?: Plan }): Promise<Account>;
  setPlan(id: string, plan: Plan): Promise<Account>;
} {
  return {
    get: (id) => getAccount(q, id),
    list: () => listAccounts(q),
    create: (input) => createAccount(q, input),
    setPlan: (id, plan) => setAccountPlan(q, id, plan),
    // Released with the transaction (commit, rollback or a dropped connection).
    lockBootstrap: async () => void (await q.unsafe('SELECT pg_advisory_xact_lock($1::bigint)', [BOOTSTRAP_LOCK.toString()])),
  };
}
