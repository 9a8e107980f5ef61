// `payforge migrate`: create the database if missing and apply the embedded migrations.
import { configFrom, parse, print, withDb } from './common';

export async function migrate(argv: string[]): Promise<void> {
  const { values } = parse(argv, {});
  const config = configFrom(values);
  // openDb migrates; report what the file now records.
  const tags = await withDb(config, (db) =>
    (db.sqlite.query('SELECT tag FROM __migrations ORDER BY tag').all() as Array<{ tag: string }>).map((r) => r.tag),
  );
  print({ db: config.db, migrations: tags });
}
