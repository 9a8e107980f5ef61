// `payforge migrate --db postgres://...` on a real PostgreSQL: the embedded PostgreSQL
// migrations applied once (a second run applies nothing new), the URL printed without its password.
import { SQL } from 'bun';
import { expect, it } from 'vitest';
import { PG_MIGRATIONS } from '../../src/store/pg/migrations.generated';
import { runCli } from '../support/cli';
import { freshDatabaseUrl } from '../support/postgres';

it('migrate applies the PostgreSQL migrations and never prints the password', async () => {
  // trust authentication: the server never asks for this password, so it can be anything.
  const url = (await freshDatabaseUrl()).replace('postgres@', 'postgres:s3cret-pw@');
  const tags = PG_MIGRATIONS.map((m) => m.tag).sort();
  for (let run = 0; run < 2; run++) {
    const r = await runCli(['migrate', '--db', url]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain('s3cret-pw');
    expect(r.json()).toEqual({ db: url.replace('s3cret-pw', '***'), migrations: tags });
  }
  const sql = new SQL(url);
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM __migrations`;
  await sql.close();
  expect(n).toBe(tags.length);
});
