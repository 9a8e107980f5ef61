// The PostgreSQL migrations embedded in the build, applied to a real PostgreSQL: once, again as
// a no-op, and by three instances booting at once; the migrated database has exactly the tables
// and columns of src/store/pg/schema.ts; the embedded SQL of both engines is what drizzle-kit wrote.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQL } from 'bun';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../src/store/migrations.generated';
import { appliedPgMigrations, migratePg } from '../../../src/store/pg/migrate';
import { PG_MIGRATIONS } from '../../../src/store/pg/migrations.generated';
import * as pgSchema from '../../../src/store/pg/schema';
import { freshDatabaseUrl } from '../../support/postgres';

const ROOT = join(import.meta.dirname, '../../..');
const open: SQL[] = [];
const client = (url: string) => {
  const c = new SQL({ url, max: 2 });
  open.push(c);
  return c;
};
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const ALL = PG_MIGRATIONS.map((m) => m.tag);
const PG_TABLES = (Object.values(pgSchema) as unknown[]).filter((t): t is PgTable => t instanceof PgTable);

describe('migratePg', () => {
  it('applies every embedded migration to a fresh database, then is a no-op', async () => {
    const sql = client(await freshDatabaseUrl());
    expect(await migratePg(sql)).toEqual(ALL);
    expect(await appliedPgMigrations(sql)).toEqual([...ALL].sort());
    await sql`INSERT INTO accounts (id, name, plan, created_at) VALUES ('acct_a', 'a', 'pro', ${Date.now()})`;
    expect(await migratePg(sql)).toEqual([]);
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM __migrations`;
    expect(n).toBe(ALL.length);
    expect([...(await sql`SELECT id FROM accounts`)]).toEqual([{ id: 'acct_a' }]);
  });

  it('three instances migrating one database at once: none fails, each migration applied once', async () => {
    const url = await freshDatabaseUrl();
    const results = await Promise.all([client(url), client(url), client(url)].map((c) => migratePg(c)));
    expect(results.flat().sort()).toEqual([...ALL].sort());
    expect(results.filter((r) => r.length > 0)).toHaveLength(1);
    expect(await appliedPgMigrations(client(url))).toEqual([...ALL].sort());
  });

  it('leaves a database with exactly the tables and columns of src/store/pg/schema.ts', async () => {
    const sql = client(await freshDatabaseUrl());
    await migratePg(sql);
    const rows: Array<{ table_name: string; column_name: string; data_type: string; is_nullable: string }> = await sql`
      SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name <> '__migrations' ORDER BY table_name, column_name`;
    const actual = rows.map(
      (r) => `${r.table_name}.${r.column_name} ${r.data_type}${r.is_nullable === 'NO' ? ' not null' : ''}`,
    );
    const expected = PG_TABLES.flatMap((t) => {
      const cfg = getTableConfig(t);
      return cfg.columns.map((c) => `${cfg.name}.${c.name} ${c.getSQLType()}${c.notNull ? ' not null' : ''}`);
    }).sort();
    expect(actual.sort()).toEqual(expected);
    const indexes: Array<{ indexname: string }> =
      await sql`SELECT indexname FROM pg_indexes WHERE schemaname = 'public'`;
    const names = new Set(indexes.map((i) => i.indexname));
    for (const t of PG_TABLES) {
      for (const i of getTableConfig(t).indexes) expect(names, i.config.name).toContain(i.config.name);
    }
  });
});

describe('embedded migrations', () => {
  for (const [folder, embedded] of [
    ['drizzle', MIGRATIONS],
    ['drizzle-pg', PG_MIGRATIONS],
  ] as const) {
    it(`are the files drizzle-kit wrote in ${folder}/ (bun run db:generate)`, () => {
      const journal = JSON.parse(readFileSync(join(ROOT, folder, 'meta/_journal.json'), 'utf8')) as {
        entries: Array<{ tag: string }>;
      };
      expect(embedded.map((m) => m.tag)).toEqual(journal.entries.map((e) => e.tag));
      for (const m of embedded) expect(m.sql).toBe(readFileSync(join(ROOT, folder, `${m.tag}.sql`), 'utf8'));
    });
  }
});
