// `payforge migrate`: create the database if missing and apply the embedded migrations.
import { appliedMigrations } from '../store/db';
import { configFrom, parse, print, withDb } from './common';

export async function migrate(argv: string[]): Promise<void> {
  const { values } = parse(argv, {});
  const config = configFrom(values);
  // openDb migrates; report what the file now records.
  const tags = await withDb(config, appliedMigrations);
  print({ db: config.db, migrations: tags });
}
