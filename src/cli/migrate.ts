// `payforge migrate`: create the database if missing and apply the embedded migrations (a
// postgres:// database must exist; its tables are created).
import { appliedMigrations } from '../store/db';
import { appliedPgMigrations } from '../store/pg/migrate';
import { describeDb, openPg } from '../store/pg/connect';
import { configFrom, parse, print, withDb } from './common';

export async function migrate(argv: string[]): Promise<void> {
  const { values } = parse(argv, {});
  const config = configFrom(values);
  if (/^postgres(ql)?:\/\//i.test(config.db)) {
    const pg = await openPg(config.db, { poolSize: 1 });
    try {
      print({ db: describeDb(config.db), migrations: await appliedPgMigrations(pg.sql) });
    } finally {
      await pg.close();
    }
    return;
  }
  // openDb migrates; report what the file now records.
  const tags = await withDb(config, appliedMigrations);
  print({ db: config.db, migrations: tags });
}
