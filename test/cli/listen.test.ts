// `payforge listen` against a real server: events arrive verified, are printed, and are forwarded
// with their signing headers; --since replays events written while no endpoint existed; Ctrl-C
// puts the endpoint back. `webhooks replay` queues the same to the configured endpoint.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db';
import { getEndpoint } from '../../src/store/webhook-endpoints';
import { pfSignature } from '../../src/webhooks/sign';
import { cleanEnv, MAIN, REPO_ROOT, runCli, startServe } from '../support/cli';
import { startReceiver } from '../support/receiver';

const dir = mkdtempSync(join(tmpdir(), 'pf-listen-'));
const db = join(dir, 'payforge.db');
const config = join(dir, 'payforge.json');
writeFileSync(config, JSON.stringify({ webhooks: { pollIntervalMs: 50, retryScheduleSeconds: [1] } }));
const receiver = startReceiver();
afterAll(() => receiver.close());

/** A CLI process whose stdout is read line by line (JSON). */
function spawnLines(args: string[]) {
  const proc = Bun.spawn([process.execPath, MAIN, ...args], { cwd: REPO_ROOT, env: cleanEnv(), stdout: 'pipe', stderr: 'pipe' });
  const lines: any[] = [];
  let stderr = '';
  void (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  void (async () => {
    let buf = '';
    for await (const chunk of proc.stdout) {
      buf += new TextDecoder().decode(chunk);
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
      }
    }
  })();
  return { proc, lines, stderr: () => stderr };
}

async function createIntent(url: string, key: string): Promise<string> {
  const r = await fetch(`${url}/v1/intents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '1.5', requestor: '0x1111111111111111111111111111111111111111' }),
  });
  expect(r.status).toBe(201);
  return (await r.json()).intent.id;
}

describe('payforge listen', () => {
  it('prints and forwards verified events, replays --since, restores the endpoint on Ctrl-C', async () => {
    const serve = await startServe(['serve', '--bootstrap', '--port', '0', '--db', db, '--config', config]);
    try {
      const key = serve.testKey!;
      // Written while the account has no endpoint: never delivered on its own.
      const early = await createIntent(serve.url, key);

      const listen = spawnLines(['listen', '--forward-to', receiver.url('/hooks'), '--since', '1h', '--db', db, '--config', config]);
      await expect.poll(() => listen.lines.length, { timeout: 10_000 }).toBeGreaterThan(0);
      const ready = listen.lines[0];
      expect(ready).toMatchObject({ listening: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/), mode: 'test', replayed: 1 });
      await expect.poll(() => listen.stderr()).toContain('Press Ctrl-C to stop');

      const later = await createIntent(serve.url, key);
      await expect.poll(() => listen.lines.length, { timeout: 10_000 }).toBe(3);
      const printed = listen.lines.slice(1);
      expect(printed.map((l) => l.intentId).sort()).toEqual([early, later].sort());
      for (const l of printed) expect(l).toMatchObject({ type: 'intent.created', verified: true, forwarded: 200, eventId: expect.stringMatching(/^evt_/) });

      const got = await receiver.waitFor(2, { prefix: '/hooks' });
      for (const r of got) {
        // The forwarded bytes verify with the secret listen printed, as the app's own check would.
        expect(r.headers['x-pf-signature']).toBe(pfSignature(ready.secret, r.body));
        expect(r.headers['webhook-signature']).toMatch(/^v1,/);
      }

      // A forged delivery is refused, not printed.
      const forged = await fetch(ready.listening, { method: 'POST', body: '{"type":"intent.created"}', headers: { 'x-pf-signature': 'ab'.repeat(32) } });
      expect(forged.status).toBe(400);

      listen.proc.kill('SIGINT');
      expect(await listen.proc.exited).toBe(0);
      expect(listen.stderr()).toContain('test endpoint removed');
      const check = openDb(db);
      try {
        expect(getEndpoint(check, ready.account, 'test')).toBeNull();
      } finally {
        check.close();
      }
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });

  it('webhooks replay queues every event since a time to the configured endpoint', async () => {
    const serve = await startServe(['serve', '--port', '0', '--db', db, '--config', config]);
    try {
      const set = await runCli(['webhooks', 'set-endpoint', '--mode', 'test', '--url', receiver.url('/replay'), '--db', db]);
      expect(set.code, set.stderr).toBe(0);
      const r = await runCli(['webhooks', 'replay', '--mode', 'test', '--since', '1d', '--db', db]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toMatchObject({ mode: 'test', queued: 2, url: receiver.url('/replay') });
      const got = await receiver.waitFor(2, { prefix: '/replay' });
      expect(got.map((g) => JSON.parse(g.body).type)).toEqual(['intent.created', 'intent.created']);
      const bad = await runCli(['webhooks', 'replay', '--mode', 'test', '--since', 'yesterday', '--db', db]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--since must be');
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });
});
