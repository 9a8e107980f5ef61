// Raw SQL on a test's database, whichever engine it is (a SQLite file or a postgres:// URL): for a
// test that changes a row by hand ("as if the server had been down past the TTL", "a row written
// by an older build") or reads a column no repository returns. `?` placeholders on both engines.
import { SQL } from 'bun';
import { openDb } from '../../src/store/db';
import { isPostgresUrl } from '../../src/store/store';

export interface RawSql {
  run(sql: string, ...params: unknown[]): Promise<void>;
  all<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** `?` → `$1, $2, ...` (the tests' SQL has no `?` inside string literals). */
const numbered = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

export function rawSql(db: string): RawSql {
  if (isPostgresUrl(db)) {
    const pg = new SQL({ url: db, max: 1 });
    const all = async <T>(sql: string, ...params: unknown[]) => [...((await pg.unsafe(numbered(sql), params as never[])) as T[])];
    return {
      all,
      run: async (sql, ...params) => void (await all(sql, ...params)),
      close: () => pg.close(),
    };
  }
  const lite = openDb(db);
  return {
    all: async <T>(sql: string, ...params: unknown[]) => lite.sqlite.query(sql).all(...(params as never[])) as T[],
    run: async (sql, ...params) => void lite.sqlite.query(sql).run(...(params as never[])),
    close: async () => lite.close(),
  };
}

/** Run `fn` with a raw handle on `db`, closed after. */
export async function withRawSql<T>(db: string, fn: (q: RawSql) => Promise<T>): Promise<T> {
  const q = rawSql(db);
  try {
    return await fn(q);
  } finally {
    await q.close();
  }
}
