// `payforge backup --to FILE` while serve runs: a consistent SQLite copy that a second serve starts
// on at once (the running instance's lease row is not copied), what the Docker image (no sqlite3)
// backs up with. A SQLite file on both test runs: the command copies SQLite files only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli, startServe } from '../support/cli';

const dir = mkdtempSync(join(tmpdir(), 'payforge-backup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('copies a running database consistently; the copy serves at once, beside the original', async () => {
  const db = join(dir, 'payforge.db');
  const first = await startServe(['serve', '--bootstrap', '--port', '0', '--db', db]);
  let second: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    const auth = { authorization: `Bearer ${first.testKey}`, 'content-type': 'application/json' };
    const created = await fetch(`${first.url}/v1/intents`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '12.34', requestor: '0x1111111111111111111111111111111111111111' }),
    });
    const intent = (await created.json()).intent;
    expect((await fetch(`${first.url}/v1/test/intents/${intent.id}/simulate`, { method: 'POST', headers: auth, body: '{"targetState":"confirmed"}' })).status).toBe(200);

    const to = join(dir, 'backup.db');
    const r = await runCli(['backup', '--to', to, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({ db, backup: to, bytes: expect.any(Number) });
    // Never over an existing file.
    const again = await runCli(['backup', '--to', to, '--db', db]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('exists');

    // A serve on the copy starts while the original still runs on the same host (no lease row).
    second = await startServe(['serve', '--port', '0', '--db', to]);
    const read = await fetch(`${second.url}/v1/intents/${intent.id}`, { headers: auth });
    expect(read.status).toBe(200);
    expect((await read.json()).intent).toMatchObject({ id: intent.id, state: 'confirmed', amount: '12.34' });
    expect((await fetch(`${second.url}/v1/events?limit=10`, { headers: auth }).then((x) => x.json())).events.map((e: { type: string }) => e.type)).toEqual(['intent.confirmed', 'intent.created']);
  } finally {
    expect(await first.stop()).toBe(0);
    if (second) expect(await second.stop()).toBe(0);
  }
});

it('refuses a PostgreSQL database (pg_dump is its backup) and a missing --to', async () => {
  const pg = await runCli(['backup', '--to', join(dir, 'x.db'), '--db', 'postgres://u@127.0.0.1:1/none']);
  expect(pg.code).toBe(1);
  expect(pg.stderr).toContain('pg_dump');
  const none = await runCli(['backup', '--db', join(dir, 'y.db')]);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('--to');
});
