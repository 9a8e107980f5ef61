// `payforge accounts list [--json]`: every account, oldest first, as a JSON array (what every
// CLI command prints); --json is accepted so the documented spelling of lists works everywhere.
import { listAccounts } from '../store/accounts';
import { configFrom, isoOrNull, parse, print, withDb } from './common';

export async function accountsList(argv: string[]): Promise<void> {
  const { values } = parse(argv, { json: { type: 'boolean' } });
  const accounts = await withDb(configFrom(values), (db) => listAccounts(db));
  print(accounts.map((a) => ({ id: a.id, name: a.name, plan: a.plan, createdAt: isoOrNull(a.createdAt) })));
}
