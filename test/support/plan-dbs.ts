// The plan tests' databases (test/store/*-plans.test.ts): tables of a real size, on SQLite and on
// PostgreSQL, each with the real migrations, then ANALYZE, so each engine's planner chooses as it
// would in production. Each fill is an `INSERT … SELECT …` over a series `g` = 1..n without its
// FROM (SQLite's recursive series, PostgreSQL's generate_series; FALSE becomes 0 on SQLite). Call
// at the top of the test file: the databases go after each test.
import type { Database } from 'bun:sqlite';
import type { SQL } from 'bun';
import { afterEach } from 'vitest';
import { type PgTestDb, pgTestDb } from '../store/pg/db';
import { tempDb, type TempDb } from './db';

export interface PlanDbs {
  /** A SQLite file filled and analyzed. */
  sqlite(n: number, ...fills: string[]): Database;
  /** A fresh PostgreSQL database filled and analyzed. */
  pg(n: number, ...fills: string[]): Promise<SQL>;
}

export function planDbs(): PlanDbs {
  let t: TempDb | null = null;
  let pg: PgTestDb | null = null;
  afterEach(async () => {
    t?.dispose();
    await pg?.dispose();
    t = pg = null;
  });
  return {
    sqlite(n, ...fills) {
      t = tempDb();
      const s = t.db.sqlite;
      const series = `WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${n}) `;
      for (const fill of fills) s.exec(`${series}${fill.replaceAll('FALSE', '0')} FROM s`);
      s.exec('ANALYZE');
      return s;
    },
    async pg(n, ...fills) {
      pg = await pgTestDb();
      for (const fill of fills) await pg.sql.unsafe(`${fill} FROM generate_series(1, ${n}) g`);
      await pg.sql`ANALYZE`;
      return pg.sql;
    },
  };
}

/** SQLite's plan of `text` with `params`: one line a step. */
export function sqlitePlan(s: Database, text: string, ...params: Array<string | number>): string[] {
  return s
    .query<{ detail: string }, Array<string | number>>(`EXPLAIN QUERY PLAN ${text}`)
    .all(...params)
    .map((r) => r.detail);
}

/** PostgreSQL's plan of `text` with `params`, as one text. */
export async function pgPlan(sql: SQL, text: string, params: Array<string | number>): Promise<string> {
  return (await sql.unsafe(`EXPLAIN ${text}`, params)).map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
}
