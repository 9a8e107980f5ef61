// `payforge accounts set-plan [--account acct_…] --plan free|pro`: refunds and webhook retry
// need pro; the running server reads the plan on every request, so no restart is needed.
import { PLANS, setAccountPlan } from '../store/accounts';
import { accountOf, configFrom, oneOf, parse, print, required, withDb } from './common';

export async function accountsSetPlan(argv: string[]): Promise<void> {
  const { values } = parse(argv, { account: { type: 'string' }, plan: { type: 'string' } });
  const plan = oneOf(required(values, 'plan'), 'plan', PLANS);
  const account = await withDb(configFrom(values), (db) => setAccountPlan(db, accountOf(db, values), plan));
  print({ id: account.id, name: account.name, plan: account.plan });
}
