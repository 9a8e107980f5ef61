import { chmodSync, copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT, runCli, startServe } from '../support/cli';
import { freshDatabaseUrl } from '../support/postgres';
import { startReceiver } from '../support/receiver';

// One build for the file. It runs in a copy of the tree because the build regenerates the
// embedded modules (migrations, sanctions) that test files running in parallel import.
const EXCLUDE = new Set(['node_modules', 'dist', '.git', '.tmp', 'test', 'bench', 'data/payforge.db']);
let bin: string;
let work: string;
let built: string[];

beforeAll(async () => {
  const tree = mkdtempSync(join(tmpdir(), 'pf-build-'));
  cpSync(REPO_ROOT, tree, {
    recursive: true,
    filter: (src) => !EXCLUDE.has(relative(REPO_ROOT, src)) && !/\.db(-wal|-shm)?$/.test(src),
  });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(tree, 'node_modules'));
  const build = Bun.spawn([process.execPath, 'run', 'build'], { cwd: tree, stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited]);
  if (code !== 0) throw new Error(`bun run build failed (${code}):\n${out}\n${err}`);
  built = readdirSync(join(tree, 'dist'));

  // The executable alone in its folder, run from another empty folder.
  const binDir = mkdtempSync(join(tmpdir(), 'pf-bin-'));
  bin = join(binDir, 'payforge');
  copyFileSync(join(tree, 'dist', 'payforge'), bin);
  chmodSync(bin, 0o755);
  work = mkdtempSync(join(tmpdir(), 'pf-work-'));
});

const run = (...args: string[]) => runCli(args, { bin, cwd: work });

describe('the compiled binary dist/payforge', () => {
  it('is the one artifact the build leaves in dist/ (the workers\' source maps are embedded, not left beside it)', () => {
    expect(built).toEqual(['payforge']);
  });

  it('runs the CLI and serves the API with nothing beside it', async () => {
    const migrated = await run('migrate', '--db', './payforge.db');
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.json().migrations).toContain('0000_init');

    const account = await run('accounts', 'create', '--name', 'Binary', '--plan', 'pro', '--db', './payforge.db');
    expect(account.code, account.stderr).toBe(0);
    const accountId = account.json().id as string;
    const key = await run('keys', 'create', '--account', accountId, '--mode', 'test', '--db', './payforge.db');
    expect(key.code, key.stderr).toBe(0);
    const apiKey = key.json().key as string;
    expect(apiKey).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);

    const machine = await run('machine', '--json');
    expect(machine.json().states).toHaveProperty('finalized');

    const bad = await run('keys', 'create', '--account', accountId, '--mode', 'test', '--config', './missing.json');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('config: cannot read config file');

    // The webhook dispatcher's and the intent writer's workers are inside the executable too: the
    // intent below is written on the writer's thread (off by default: switched on by config) and
    // its intent.created arrives.
    const rx = startReceiver();
    const hook = await run('webhooks', 'set-endpoint', '--db', './payforge.db', '--account', accountId, '--mode', 'test', '--url', rx.url('/hooks'));
    expect(hook.code, hook.stderr).toBe(0);

    const port = await freePort();
    writeFileSync(join(work, 'writer.json'), JSON.stringify({ sqlite: { writerThread: true } }));
    const server = await startServe(['serve', '--port', String(port), '--db', './payforge.db', '--config', './writer.json'], { bin, cwd: work });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
      expect(server.testKey).toBeUndefined();
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      // /docs: Swagger UI's files are inside the executable (nothing beside it, no CDN).
      expect((await fetch(`${server.url}/docs`)).status).toBe(200);
      for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
        const r = await fetch(`${server.url}/docs/assets/${asset}`);
        expect(r.status, asset).toBe(200);
        expect(await r.text()).toBe(readFileSync(join(REPO_ROOT, 'node_modules/swagger-ui-dist', asset), 'utf8'));
      }

      const res = await fetch(`${server.url}/v1/intents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '1.50', requestor: `0x${'ab'.repeat(20)}` }),
      });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(201);
      expect(body.intent).toMatchObject({ chain: 'eip155:84532', token: 'USDC', amount: '1.5', amountBaseUnits: '1500000', state: 'created', livemode: false });

      const got = await fetch(`${server.url}/v1/intents/${body.intent.id}`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(got.status).toBe(200);
      const [delivery] = await rx.waitFor(1, { timeoutMs: 20_000 });
      expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'intent.created', data: { intent: { id: body.intent.id } } });
      expect(server.stderr()).toContain('webhook dispatcher running on its own thread');
      // So is the intent writer's: the create above was written on its thread.
      expect(server.stderr()).toContain('intent writer running on its own thread');
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toMatch(/^payforge_writer_writes_total 1$/m);
    } finally {
      expect(await server.stop()).toBe(0);
      await rx.close();
    }

    // Only the executable in its folder; the database lives where --db said.
    expect(readdirSync(join(bin, '..'))).toEqual(['payforge']);
    expect(readdirSync(work)).toContain('payforge.db');
  });

  it('runs on a postgres:// database with its PostgreSQL migrations embedded', async () => {
    const db = await freshDatabaseUrl();
    const migrated = await run('migrate', '--db', db);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.json().migrations).toContain('0000_init');
    const server = await startServe(['serve', '--bootstrap', '--port', '0', '--db', db], { bin, cwd: work });
    try {
      expect(server.testKey).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      const res = await fetch(`${server.url}/v1/intents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.testKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '1.50', requestor: `0x${'ab'.repeat(20)}` }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const accounts = await run('accounts', 'list', '--db', db);
    expect(accounts.code, accounts.stderr).toBe(0);
    expect(accounts.json()).toHaveLength(1);
    // Nothing was written beside the binary or in the working folder for a PostgreSQL database.
    expect(readdirSync(join(bin, '..'))).toEqual(['payforge']);
    expect(readdirSync(work).some((f) => f.startsWith('postgres'))).toBe(false);
  });

  it('serve --bootstrap prints a test key on an empty database', async () => {
    const server = await startServe(['serve', '--bootstrap', '--port', '0', '--db', './boot/payforge.db'], { bin, cwd: work });
    try {
      expect(server.testKey).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);
      const list = await fetch(`${server.url}/v1/intents`, { headers: { authorization: `Bearer ${server.testKey}` } });
      expect(list.status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
