// A database a newer PayForge migrated is refused by name, before anything is served or written
// (a downgrade is not supported: README Operations, "Upgrading"). Before, an older binary started
// on the newer schema or died on an obscure SQL error ("no query solution").
import { Database } from 'bun:sqlite';
import { expect, it } from 'vitest';
import { isPostgresUrl } from '../../src/store/store';
import { cleanEnv, MAIN, REPO_ROOT, runCli } from '../support/cli';
import { withRawSql } from '../support/raw-sql';
import { freshTestDatabase } from '../support/test-store';

it('serve and the CLI refuse a database with a migration this build does not know, naming it', async () => {
  const { db } = await freshTestDatabase();
  const first = await runCli(['accounts', 'create', '--name', 'shop', '--db', db]);
  expect(first.code, first.stderr).toBe(0);
  await withRawSql(db, (q) => q.run('INSERT INTO __migrations (tag, applied_at) VALUES (?, ?)', '9999_from_a_newer_payforge', Date.now()));

  // serve before it listens (killed after 15 s should it serve anyway: on main it did).
  const serve = Bun.spawn([process.execPath, MAIN, 'serve', '--port', '0', '--db', db], { cwd: REPO_ROOT, env: cleanEnv(), stdout: 'pipe', stderr: 'pipe', timeout: 15_000 });
  const [out, err, code] = await Promise.all([new Response(serve.stdout).text(), new Response(serve.stderr).text(), serve.exited]);
  expect({ code, out }).toEqual({ code: 1, out: '' });
  expect(err).toContain('migrated by a newer PayForge');
  for (const args of [['accounts', 'list'], ['migrate']]) {
    const r = await runCli([...args, '--db', db]);
    expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
    expect(r.stderr).toContain('migrated by a newer PayForge');
    expect(r.stderr).toContain('9999_from_a_newer_payforge');
  }
  // Nothing was changed: the account is still there once the unknown migration is gone.
  const forget = "DELETE FROM __migrations WHERE tag = '9999_from_a_newer_payforge'";
  // (SQLite by hand: the test helper's openDb migrates, which now refuses this file too.)
  if (isPostgresUrl(db)) await withRawSql(db, (q) => q.run(forget));
  else {
    const lite = new Database(db);
    lite.run(forget);
    lite.close();
  }
  const list = await runCli(['accounts', 'list', '--db', db]);
  expect(list.code, list.stderr).toBe(0);
  expect(list.json()).toEqual([expect.objectContaining({ name: 'shop' })]);
});
