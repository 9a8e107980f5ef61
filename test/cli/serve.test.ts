import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/api';
import { freePort, runCli, startServe } from '../support/cli';
import { freshTestDatabase } from '../support/test-store';

describe('serve', () => {
  it('--bootstrap prints the test key once; the key works; revoke answers 401 at once; SIGTERM stops cleanly', async () => {
    const { db } = await freshTestDatabase();
    const first = await startServe(['serve', '--bootstrap', '--port', '0', '--db', db]);
    try {
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(first.testKey).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
      const port = new URL(first.url).port;
      const health = await runCli(['health', '--port', port]);
      expect(health.code, health.stderr).toBe(0);
      expect(health.json()).toEqual({ url: `http://127.0.0.1:${port}/healthz`, status: 200 });
      const auth = { authorization: `Bearer ${first.testKey}` };
      expect((await fetch(`${first.url}/v1/intents`, { headers: auth })).status).toBe(200);

      // The CLI writes beside the running server (WAL) and the server sees it on the next request.
      const revoked = await runCli(['keys', 'revoke', first.testKey as string, '--db', db]);
      expect(revoked.code, revoked.stderr).toBe(0);
      const after = await fetch(`${first.url}/v1/intents`, { headers: auth });
      expect(after.status).toBe(401);
      expect((await after.json()).error.code).toBe('auth.invalid_api_key');
    } finally {
      expect(await first.stop()).toBe(0);
    }

    // The database is no longer empty: no second key.
    const second = await startServe(['serve', '--bootstrap', '--port', '0', '--db', db]);
    expect(second.testKey).toBeUndefined();
    expect(await second.stop()).toBe(0);

    // Every stderr line of a running server is a JSON log line, its own start and stop included.
    for (const [run, expected] of [[first, ['listening', 'stopping']], [second, ['listening', 'stopping']]] as const) {
      const lines = (await waitFor(() => (run.stderr().includes('"stopping"') ? run.stderr() : null), 5000, 'the stop line')).trim().split('\n');
      for (const line of lines) {
        const entry = JSON.parse(line);
        expect(entry, line).toMatchObject({ level: expect.any(String), msg: expect.any(String), time: expect.any(String) });
      }
      expect(lines.map((l) => JSON.parse(l).msg)).toEqual(expect.arrayContaining([...expected]));
    }
    expect(second.stderr()).toMatch(/"level":"warn","msg":"the database already has accounts/);
  });

  it('health fails with exit 1 when nothing listens', async () => {
    const r = await runCli(['health', '--port', String(await freePort())]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
  });

  it('refuses a bad port before starting anything', async () => {
    const r = await runCli(['serve', '--port', 'http']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('config: port must be an integer from 0 to 65535');
  });
});
