// `payforge accounts list [--json]`: every account, oldest first, as a JSON array (what every
// CLI command prints); --json is accepted so the documented spelling of lists works everywhere.
import { configFrom, isoOrNull, parse, print, withStore } from './common';

export async function accountsList(argv: string[]): Promise<void> {
  const { values } = parse(argv, { json: { type: 'boolean' } });
  const accounts = await withStore(configFrom(values), ({ repos }) => repos.accounts.list());
  print(accounts.map((a) => ({ id: a.id, name: a.name, plan: a.plan, createdAt: isoOrNull(a.createdAt) })));
}
