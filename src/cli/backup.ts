// `payforge backup --to FILE`: a consistent, compacted copy of the SQLite database, also while serve
// runs (src/store/backup.ts). The Docker image has no sqlite3, so this is how its database is
// backed up (`docker exec payforge /payforge backup --to /data/backup.db`). PostgreSQL: pg_dump.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { backupInto } from '../store/backup';
import { configFrom, parse, print, required, withDb } from './common';

export async function backup(argv: string[]): Promise<void> {
  const { values } = parse(argv, { to: { type: 'string' } });
  const config = configFrom(values);
  const to = resolve(required(values, 'to'));
  if (/^postgres(ql)?:\/\//i.test(config.db)) {
    throw new Error('backup copies a SQLite database; for PostgreSQL use pg_dump (README Operations, Backups)');
  }
  if (existsSync(to)) throw new Error(`${to} exists: backup never overwrites a file`);
  const bytes = await withDb(config, (db) => backupInto(db, to));
  print({ db: config.db, backup: to, bytes });
}
