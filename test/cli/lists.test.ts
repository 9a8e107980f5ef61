// The first-hour CLI (issue 17): lists of what the CLI makes, set-plan, --account inferred when
// unambiguous, bootstrap naming its account, lastUsedAt flushed from a real server's use. On
// either store (PAYFORGE_TEST_STORE).
import { describe, expect, it } from 'vitest';
import { runCli, startServe } from '../support/cli';
import { freshTestDatabase } from '../support/test-store';

/** A fresh database of the store under test (a SQLite file path or a postgres:// URL) for --db. */
const freshDb = async () => (await freshTestDatabase()).db;

describe('accounts list, set-plan', () => {
  it('lists every account oldest first as JSON (with or without --json) and changes a plan', async () => {
    const db = await freshDb();
    const cli = (...a: string[]) => runCli([...a, '--db', db]);
    expect((await cli('accounts', 'list')).json()).toEqual([]);
    const a = (await cli('accounts', 'create', '--name', 'Acme')).json();
    const b = (await cli('accounts', 'create', '--name', 'Beta', '--plan', 'pro')).json();
    for (const args of [['accounts', 'list'], ['accounts', 'list', '--json']]) {
      const r = await cli(...args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toEqual([
        { id: a.id, name: 'Acme', plan: 'free', createdAt: expect.stringMatching(/Z$/) },
        { id: b.id, name: 'Beta', plan: 'pro', createdAt: expect.stringMatching(/Z$/) },
      ]);
    }
    const set = await cli('accounts', 'set-plan', '--account', a.id, '--plan', 'pro');
    expect(set.code, set.stderr).toBe(0);
    expect(set.json()).toEqual({ id: a.id, name: 'Acme', plan: 'pro' });
    expect((await cli('accounts', 'list')).json()[0].plan).toBe('pro');

    const bad = await cli('accounts', 'set-plan', '--account', a.id, '--plan', 'gold');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--plan must be one of free, pro');
    const unknown = await cli('accounts', 'set-plan', '--account', 'acct_nope', '--plan', 'pro');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr).error.code).toBe('account.not_found');
  });
});

describe('--account inferred only when unambiguous', () => {
  it('keys create, webhooks set-endpoint and keys list work without --account on a one-account database, and refuse on two', async () => {
    const db = await freshDb();
    const cli = (...a: string[]) => runCli([...a, '--db', db]);
    const none = await cli('keys', 'create', '--mode', 'test');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no account yet');

    const acct = (await cli('accounts', 'create', '--name', 'Solo')).json().id;
    const key = await cli('keys', 'create', '--mode', 'test');
    expect(key.code, key.stderr).toBe(0);
    expect(key.json().account).toBe(acct);
    const ep = await cli('webhooks', 'set-endpoint', '--mode', 'test', '--url', 'http://localhost:9/hook');
    expect(ep.code, ep.stderr).toBe(0);
    const rot = await cli('webhooks', 'rotate-secret', '--mode', 'test');
    expect(rot.code, rot.stderr).toBe(0);

    await cli('accounts', 'create', '--name', 'Second');
    const ambiguous = await cli('keys', 'create', '--mode', 'test');
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('the database has 2 accounts (payforge accounts list shows them)');
    expect((await cli('keys', 'list')).code).toBe(2);
    expect((await cli('keys', 'list', '--account', acct)).code).toBe(0);
  });
});

describe('keys list', () => {
  it('shows prefix, mode, created, last used and revoked, never the key; lastUsedAt comes from a real server', async () => {
    const db = await freshDb();
    const serve = await startServe(['serve', '--bootstrap', '--port', '0', '--db', db]);
    let account: string;
    try {
      expect(serve.testKey).toMatch(/^pk_test_/);
      account = (serve as unknown as { account: string }).account;
      expect(account).toMatch(/^acct_[0-9A-Za-z]{24}$/);
      const before = (await runCli(['keys', 'list', '--db', db])).json();
      expect(before).toEqual([
        {
          id: expect.stringMatching(/^key_/), account, mode: 'test', prefix: `pk_test_…${serve.testKey!.slice(-4)}`,
          createdAt: expect.stringMatching(/Z$/), lastUsedAt: null, revokedAt: null,
        },
      ]);
      const r = await fetch(`${serve.url}/v1/intents`, { headers: { authorization: `Bearer ${serve.testKey}` } });
      expect(r.status).toBe(200);
    } finally {
      // SIGTERM flushes the remembered key use.
      expect(await serve.stop()).toBe(0);
    }
    const live = (await runCli(['keys', 'create', '--mode', 'live', '--db', db])).json();
    await runCli(['keys', 'revoke', live.id, '--db', db]);
    const r = await runCli(['keys', 'list', '--json', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    const keys = r.json();
    expect(keys).toHaveLength(2);
    expect(Date.parse(keys[0].lastUsedAt)).toBeGreaterThan(Date.parse(keys[0].createdAt) - 1);
    expect(keys[1]).toMatchObject({ id: live.id, mode: 'live', lastUsedAt: null, revokedAt: expect.stringMatching(/Z$/) });
    expect(r.stdout).not.toContain(serve.testKey!);
    expect(r.stdout).not.toContain(live.key);
  });
});

describe('bootstrap names what it made', () => {
  it('prints the account id with the key, and on a second start says where keys are', async () => {
    const db = await freshDb();
    const first = await startServe(['serve', '--bootstrap', '--port', '0', '--db', db]);
    const made = first as unknown as { account: string; testKey: string };
    expect(made.account).toMatch(/^acct_/);
    expect(made.testKey).toMatch(/^pk_test_/);
    expect(await first.stop()).toBe(0);
    const second = await startServe(['serve', '--bootstrap', '--port', '0', '--db', db]);
    try {
      expect(second.testKey).toBeUndefined();
      await expect.poll(() => second.stderr()).toContain('payforge accounts list');
      expect(second.stderr()).toContain('payforge keys list');
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});

describe('commands are looked up safely', () => {
  it('Object.prototype names are unknown commands, not crashes', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const r = await runCli([name]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`Unknown command '${name}'`);
    }
  });
});
