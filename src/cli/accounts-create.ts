// `payforge accounts create --name N [--plan free|pro]`
import { PLANS } from '../store/accounts';
import { configFrom, oneOf, parse, print, required, withStore } from './common';

export async function accountsCreate(argv: string[]): Promise<void> {
  const { values } = parse(argv, { name: { type: 'string' }, plan: { type: 'string' } });
  const name = required(values, 'name');
  const plan = oneOf((values.plan as string | undefined) ?? 'free', 'plan', PLANS);
  const account = await withStore(configFrom(values), ({ repos }) => repos.accounts.create({ name, plan }));
  print({ id: account.id, name: account.name, plan: account.plan });
}
