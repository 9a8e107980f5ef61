// `payforge accounts set-plan [--account acct_…] --plan free|pro`: refunds and webhook retry
// need pro; the running server reads the plan on every request, so no restart is needed.
import { PLANS } from '../store/accounts';
import { accountOf, configFrom, oneOf, parse, print, required, withStore } from './common';

export async function accountsSetPlan(argv: string[]): Promise<void> {
  const { values } = parse(argv, { account: { type: 'string' }, plan: { type: 'string' } });
  const plan = oneOf(required(values, 'plan'), 'plan', PLANS);
  const account = await withStore(configFrom(values), async ({ repos }) => repos.accounts.setPlan(await accountOf(repos, values), plan));
  print({ id: account.id, name: account.name, plan: account.plan });
}
