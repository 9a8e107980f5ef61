// The PostgreSQL run (vitest.pg.config.ts) skips nothing silently: every file it leaves out is
// listed with a reason, every listed file exists, and a file said to open no store does not reach
// one (a new test that starts a server or a core would otherwise run on SQLite only unnoticed).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ONCE, SQLITE_ONLY } from '../../vitest.pg.lists';

const files = (pattern: string): string[] => [...new Bun.Glob(pattern).scanSync('.')].sort();
const STORE_REACH = /support\/(server|core|db|test-store|raw-sql|instances|cli)['"]|src\/(store|compose|server)\/?|webhooks\/factory|bun:sqlite|createCore|startTestServer|openDb/;

describe('the PostgreSQL run', () => {
  it('lists only files that exist, each with a reason', () => {
    for (const [pattern, why] of Object.entries({ ...SQLITE_ONLY, ...ONCE })) {
      expect(files(pattern).length, pattern).toBeGreaterThan(0);
      expect(why.length, pattern).toBeGreaterThan(5);
    }
  });

  it('a file left out as opening no store opens none', () => {
    const noStore = Object.entries(ONCE).filter(([, why]) => why.startsWith('no store'));
    for (const [pattern] of noStore)
      for (const f of files(pattern)) expect(STORE_REACH.test(readFileSync(f, 'utf8')) ? f : null, `${f} reaches a store: run it on both (or list why not)`).toBeNull();
  });

  it('runs most of the suite again', () => {
    const all = new Set(files('test/**/*.test.ts'));
    for (const pattern of [...Object.keys(SQLITE_ONLY), ...Object.keys(ONCE)]) for (const f of files(pattern)) all.delete(f);
    // The API, lifecycle (e2e), dashboard, pay, browser, intents and runtime tests at least.
    for (const dir of ['api', 'e2e', 'dashboard', 'pay', 'browser', 'intents', 'actors']) expect([...all].some((f) => f.startsWith(`test/${dir}/`)), dir).toBe(true);
    expect(all.size).toBeGreaterThanOrEqual(45);
  });
});
