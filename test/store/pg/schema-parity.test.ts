// The PostgreSQL schema mirrors the SQLite one (issue 12, pg-design decision 6): the same
// tables, columns, nullability, keys and indexes (partial ones with the same condition), so the
// two cannot drift: a column or index added to one schema and not the other fails here.
import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as pg from '../../../src/store/pg/schema';
import * as sqlite from '../../../src/store/schema';

interface Shape {
  columns: Record<string, { notNull: boolean; primary: boolean; kind: 'text' | 'number' | 'boolean' }>;
  primaryKey: string[];
  indexes: Record<string, { unique: boolean; columns: string[]; where: string | null }>;
  foreignKeys: string[];
}

/** The literal text of a drizzle `sql` template without parameters (the partial-index conditions). */
function sqlText(where: unknown): string | null {
  if (!where) return null;
  const chunks = (where as { queryChunks: Array<{ value?: string[] }> }).queryChunks;
  return chunks.map((c) => (c.value ?? []).join('')).join('');
}

/**
 * A condition with its state lists written as IN lists. SQLite's live / closed partial indexes
 * spell them as comparisons (`state = 'a' OR state = 'b'`, `state <> 'a' AND state <> 'b'`: SQLite
 * builds a temporary b-tree for a constant IN list of more than two values on every write, migration
 * 0015); PostgreSQL's keep `state IN (...)`. Same states in the same order compare equal.
 */
function stateLists(where: string | null): string | null {
  if (where === null) return null;
  const list = (m: string, op: string) => [...m.matchAll(new RegExp(`state ${op} ('[a-z_]+')`, 'g'))].map((x) => x[1]).join(',');
  return where
    .replace(/\(?state = '[a-z_]+'(?: OR state = '[a-z_]+')+\)?/g, (m) => `state IN (${list(m, '=')})`)
    .replace(/state <> '[a-z_]+'(?: AND state <> '[a-z_]+')+/g, (m) => `state NOT IN (${list(m, '<>')})`);
}

function kindOf(c: { columnType: string; dataType: string }): 'text' | 'number' | 'boolean' {
  if (c.dataType === 'boolean') return 'boolean';
  return c.dataType === 'string' ? 'text' : 'number';
}

type Cfg = ReturnType<typeof sqliteConfig> | ReturnType<typeof pgConfig>;

function shapeOf(cfg: Cfg): Shape {
  const columns: Shape['columns'] = {};
  for (const c of cfg.columns) columns[c.name] = { notNull: c.notNull, primary: c.primary, kind: kindOf(c) };
  const indexes: Shape['indexes'] = {};
  for (const i of cfg.indexes) {
    const ic = i.config as { name: string; unique: boolean; columns: Array<{ name?: string }>; where?: unknown };
    indexes[ic.name] = { unique: ic.unique, columns: ic.columns.map((c) => c.name ?? '?'), where: stateLists(sqlText(ic.where)) };
  }
  const fk = (f: (typeof cfg.foreignKeys)[number]) => {
    const r = f.reference();
    return `${r.columns.map((c) => c.name).join(',')} -> ${(r.foreignColumns[0]!.table as unknown as { [k: symbol]: string })[Symbol.for('drizzle:Name')]}(${r.foreignColumns.map((c) => c.name).join(',')})`;
  };
  return {
    columns,
    primaryKey: cfg.primaryKeys.flatMap((p) => p.columns.map((c) => c.name)),
    indexes,
    foreignKeys: cfg.foreignKeys.map(fk).sort(),
  };
}

function tables<T>(mod: Record<string, unknown>, cls: abstract new (...a: never[]) => T): Map<string, T> {
  return new Map(Object.entries(mod).filter(([, v]) => v instanceof cls) as Array<[string, T]>);
}

const sqliteTables = tables(sqlite, SQLiteTable);
const pgTables = tables(pg, PgTable);

describe('PostgreSQL schema mirrors the SQLite schema', () => {
  it('has the same tables under the same exported names', () => {
    const names = (m: Map<string, SQLiteTable | PgTable>, cfg: (t: never) => { name: string }) =>
      [...m.entries()].map(([k, t]) => `${k}=${cfg(t as never).name}`).sort();
    expect(names(pgTables, pgConfig as never)).toEqual(names(sqliteTables, sqliteConfig as never));
    expect(sqliteTables.size).toBeGreaterThan(10);
  });

  for (const [name, table] of sqliteTables) {
    it(`table ${sqliteConfig(table).name}: same columns, nullability, keys and indexes`, () => {
      const twin = pgTables.get(name);
      expect(twin, `src/store/pg/schema.ts has no ${name}`).toBeDefined();
      expect(shapeOf(pgConfig(twin!))).toEqual(shapeOf(sqliteConfig(table)));
    });
  }

  it('maps time columns to BIGINT, flags to BOOLEAN and amounts to TEXT on PostgreSQL', () => {
    const cols = pgConfig(pg.intents).columns;
    const type = (n: string) => cols.find((c) => c.name === n)!.getSQLType();
    expect(type('created_at')).toBe('bigint');
    expect(type('seq')).toBe('bigint');
    expect(type('retry_required')).toBe('boolean');
    expect(type('amount_base_units')).toBe('text');
    expect(type('snapshot')).toBe('text');
  });
});
