import { readFileSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findActiveKeyByHash, hashApiKey } from '../../src/store/api-keys';
import { type Db, openDb } from '../../src/store/db';
import { commandNames } from '../../src/cli/run';
import { runCli } from '../support/cli';

const dir = mkdtempSync(join(tmpdir(), 'pf-cli-'));
const dbPath = join(dir, 'payforge.db');
const cli = (...args: string[]) => runCli([...args, '--db', dbPath]);

// Held open for the whole file, as a running server would hold it: the CLI must work beside it (WAL).
let db: Db;
beforeAll(() => {
  db = openDb(dbPath);
});
afterAll(() => db.close());

async function newAccount(plan = 'pro'): Promise<string> {
  const r = await cli('accounts', 'create', '--name', 'Acme', '--plan', plan);
  expect(r.code, r.stderr).toBe(0);
  return r.json().id;
}

describe('accounts create', () => {
  it('prints {id, name, plan}', async () => {
    const r = await cli('accounts', 'create', '--name', 'Acme Corp', '--plan', 'pro');
    expect(r.code, r.stderr).toBe(0);
    const out = r.json();
    expect(out).toEqual({ id: expect.stringMatching(/^acct_[0-9A-Za-z]{24}$/), name: 'Acme Corp', plan: 'pro' });
    expect(db.sqlite.query('SELECT plan FROM accounts WHERE id = ?').get(out.id)).toEqual({ plan: 'pro' });
  });

  it('defaults to plan free', async () => {
    const r = await cli('accounts', 'create', '--name', 'Small');
    expect(r.json().plan).toBe('free');
  });

  it('refuses a bad plan or a missing name with usage on stderr, exit 2, nothing on stdout', async () => {
    for (const args of [['--name', 'X', '--plan', 'gold'], []]) {
      const r = await cli('accounts', 'create', ...args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/--plan must be one of free, pro|Missing required option --name/);
      expect(r.stderr).toContain('usage: payforge');
    }
  });
});

describe('keys', () => {
  it('create prints a pk_<mode>_ key once and stores only its hash', async () => {
    const account = await newAccount();
    for (const mode of ['test', 'live'] as const) {
      const r = await cli('keys', 'create', '--account', account, '--mode', mode);
      expect(r.code, r.stderr).toBe(0);
      const out = r.json();
      expect(out).toEqual({ key: expect.stringMatching(new RegExp(`^pk_${mode}_[0-9A-Za-z]{32}$`)), id: expect.stringMatching(/^key_/), account, mode });
      expect(findActiveKeyByHash(db, hashApiKey(out.key))).toEqual({ keyId: out.id, accountId: account, mode, plan: 'pro' });
      const row = db.sqlite.query('SELECT hash, last4 FROM api_keys WHERE id = ?').get(out.id) as { hash: string; last4: string };
      expect(row).toEqual({ hash: hashApiKey(out.key), last4: out.key.slice(-4) });
      expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
      // The raw key appears nowhere in the database files (main file and WAL).
      db.sqlite.exec('PRAGMA wal_checkpoint(PASSIVE)');
      for (const f of [dbPath, `${dbPath}-wal`]) {
        let bytes = '';
        try {
          bytes = readFileSync(f).toString('latin1');
        } catch {}
        expect(bytes.includes(out.key)).toBe(false);
        expect(bytes.includes(out.key.slice(8))).toBe(false);
      }
    }
  });

  it('create for an unknown account fails with account.not_found on stderr', async () => {
    const r = await cli('keys', 'create', '--account', 'acct_nope', '--mode', 'test');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'account.not_found', param: 'account' });
  });

  it('create refuses a bad mode', async () => {
    const r = await cli('keys', 'create', '--account', 'acct_x', '--mode', 'prod');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--mode must be one of test, live');
  });

  it('revoke by key or by id makes the lookup return null at once', async () => {
    const account = await newAccount('free');
    const a = (await cli('keys', 'create', '--account', account, '--mode', 'test')).json();
    const b = (await cli('keys', 'create', '--account', account, '--mode', 'live')).json();
    expect(findActiveKeyByHash(db, hashApiKey(a.key))?.plan).toBe('free');

    const byKey = await cli('keys', 'revoke', a.key);
    expect(byKey.code, byKey.stderr).toBe(0);
    expect(byKey.json()).toMatchObject({ id: a.id, account, mode: 'test', revoked: true });
    expect(findActiveKeyByHash(db, hashApiKey(a.key))).toBeNull();

    const byId = await cli('keys', 'revoke', b.id);
    expect(byId.json()).toMatchObject({ id: b.id, mode: 'live', revoked: true });
    expect(findActiveKeyByHash(db, hashApiKey(b.key))).toBeNull();
  });

  it('revoke of an unknown key fails with key.not_found', async () => {
    const r = await cli('keys', 'revoke', 'key_unknown');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error.code).toBe('key.not_found');
    const none = await cli('keys', 'revoke');
    expect(none.code).toBe(2);
  });
});

describe('webhooks', () => {
  it('set-endpoint prints {url, secret}; rotate-secret prints a new secret', async () => {
    const account = await newAccount();
    const set = await cli('webhooks', 'set-endpoint', '--account', account, '--mode', 'test', '--url', 'http://localhost:4242/hooks');
    expect(set.code, set.stderr).toBe(0);
    const { url, secret } = set.json();
    expect(url).toBe('http://localhost:4242/hooks');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const rot = await cli('webhooks', 'rotate-secret', '--account', account, '--mode', 'test');
    expect(rot.code, rot.stderr).toBe(0);
    expect(rot.json().secret).toMatch(/^whsec_/);
    expect(rot.json().secret).not.toBe(secret);
  });

  it('set-endpoint refuses a live endpoint on http with a JSON error on stderr', async () => {
    const account = await newAccount();
    const r = await cli('webhooks', 'set-endpoint', '--account', account, '--mode', 'live', '--url', 'http://localhost:4242/hooks');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error.code).toBe('webhook.invalid_endpoint');
  });

  it('rotate-secret without an endpoint fails with webhook.not_found', async () => {
    const account = await newAccount();
    const r = await cli('webhooks', 'rotate-secret', '--account', account, '--mode', 'live');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error.code).toBe('webhook.not_found');
  });
});

describe('machine, migrate', () => {
  it('machine --json prints the lifecycle definition with every state', async () => {
    const r = await runCli(['machine', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const def = r.json();
    expect(Object.keys(def.states).sort()).toEqual(['cancelled', 'confirmed', 'created', 'dropped', 'expired', 'failed', 'finalized', 'pending']);
  });

  it('migrate creates a fresh database and lists the applied migrations', async () => {
    const fresh = join(mkdtempSync(join(tmpdir(), 'pf-migrate-')), 'nested', 'new.db');
    const r = await runCli(['migrate', '--db', fresh]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({ db: fresh, migrations: expect.arrayContaining(['0000_init']) });
    // Twice is harmless.
    expect((await runCli(['migrate', '--db', fresh])).code).toBe(0);
  });
});

describe('the command line itself', () => {
  it('rejects unknown commands, unknown flags and a missing command with usage, exit 2', async () => {
    for (const args of [['frobnicate'], ['keys', 'destroy'], ['accounts', 'create', '--name', 'x', '--colour', 'red'], []]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('usage: payforge');
    }
    expect((await runCli(['accounts', 'create', '--name', 'x', '--colour', 'red'])).stderr).toContain("'--colour'");
  });

  it("a known command's usage error shows that command's usage, not all 14", async () => {
    const r = await runCli(['webhooks', 'replay', '--mode', 'test', '--since', 'yesterday']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^payforge: --since must be/);
    expect(r.stderr).toContain('usage: payforge');
    expect(r.stderr).toContain('webhooks replay [--account');
    expect(r.stderr).not.toContain('accounts create');
    expect(r.stderr).not.toContain('serve [--bootstrap]');
  });

  it('help prints the usage on stdout', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('keys revoke');
  });

  it('`<command> --help` prints that command with what it does, exit 0; `help keys` the group', async () => {
    for (const name of commandNames()) {
      const r = await runCli([...name.split(' '), '--help']);
      expect(r.code, name).toBe(0);
      const listed = r.stdout.split('\n').filter((l) => /^ {2}\S/.test(l)).map((l) => l.trim());
      expect(listed.length, name).toBe(1);
      expect(listed[0]!.startsWith(name), `${name}: ${listed[0]}`).toBe(true);
      // The line under the synopsis says what the command does.
      expect(r.stdout.split('\n')[4], name).toMatch(/^ {6}\S.{10,}/);
    }
    const group = await runCli(['help', 'keys']);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('keys create');
    expect(group.stdout).toContain('keys revoke');
    expect(group.stdout).not.toContain('accounts list');
    const unknown = await runCli(['frobnicate', '--help']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown command 'frobnicate'");
  });

  it('a bad config key stops the command with its name on stderr', async () => {
    const cfg = join(dir, 'bad.json');
    writeFileSync(cfg, JSON.stringify({ webhooks: { timeoutMs: 0 } }));
    const r = await runCli(['accounts', 'create', '--name', 'x', '--db', dbPath, '--config', cfg]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('config: webhooks.timeoutMs must be a number >= 1');
  });

  it('takes the database from PAYFORGE_DB (or a TOML config file) when --db is absent', async () => {
    const envDb = join(dir, 'env.db');
    const a = await runCli(['accounts', 'create', '--name', 'FromEnv'], { env: { PAYFORGE_DB: envDb } });
    expect(a.code, a.stderr).toBe(0);
    const tomlDb = join(dir, 'toml.db');
    const toml = join(dir, 'c.toml');
    writeFileSync(toml, `db = "${tomlDb}"\n`);
    const b = await runCli(['accounts', 'create', '--name', 'FromToml', '--config', toml]);
    expect(b.code, b.stderr).toBe(0);
    for (const [path, name] of [[envDb, 'FromEnv'], [tomlDb, 'FromToml']]) {
      const other = openDb(path as string);
      expect(other.sqlite.query('SELECT name FROM accounts').all()).toEqual([{ name }]);
      other.close();
    }
  });
});
