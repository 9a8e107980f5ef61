// `payforge accounts create --name N [--plan free|pro]`
import { createAccount, PLANS } from '../store/accounts';
import { configFrom, oneOf, parse, print, required, withDb } from './common';

export async function accountsCreate(argv: string[]): Promise<void> {
  const { values } = parse(argv, { name: { type: 'string' }, plan: { type: 'string' } });
  const name = required(values, 'name');
  const plan = oneOf((values.plan as string | undefined) ?? 'free', 'plan', PLANS);
  const account = await withDb(configFrom(values), (db) => createAccount(db, { name, plan }));
  print({ id: account.id, name: account.name, plan: account.plan });
}
