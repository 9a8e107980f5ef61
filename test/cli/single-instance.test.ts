// Issue 15 item 6: two `payforge serve` on one SQLite file (an overlapping deploy). Real serve
// processes: the second refuses to start, naming the first (pid, host, start time), whatever path
// it was given to the file (a symlink, a relative path); a holder that froze is taken over once
// its lease is stale, and on waking finds it lost and stops; one that was killed is taken over at once.
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db';
import { waitFor } from '../support/api';
import { startServe } from '../support/cli';

type Serve = Awaited<ReturnType<typeof startServe>>;

function fresh(leaseSeconds?: number): { dir: string; db: string; args: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'pf-single-'));
  const args = ['--port', '0'];
  if (leaseSeconds !== undefined) {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ cluster: { leaseSeconds } }));
    args.push('--config', join(dir, 'config.json'));
  }
  return { dir, db: join(dir, 'payforge.db'), args };
}

/** A serve expected to refuse: resolves with its exit code and stderr (fails if it starts listening). */
async function refused(args: string[], cwd?: string): Promise<{ code: number; stderr: string }> {
  try {
    const s = await startServe(args, { cwd });
    await s.stop();
    throw new Error(`a second serve started: ${s.url}`);
  } catch (e) {
    const m = /exited before printing its url \(exit (\d+)\):\n([\s\S]*)$/.exec(String((e as Error).message));
    if (!m) throw e;
    return { code: Number(m[1]), stderr: m[2]! };
  }
}

function leaseRow(db: string): { pid: number; heartbeat_at: number } | null {
  const d = openDb(db);
  try {
    return d.sqlite.query<{ pid: number; heartbeat_at: number }, []>('SELECT pid, heartbeat_at FROM instance_leases').get();
  } finally {
    d.close();
  }
}

describe('one serve per SQLite file', () => {
  it('a second serve on the same file refuses at once, naming the running one; also through a symlink and a relative path', async () => {
    const { dir, db, args } = fresh();
    const first: Serve = await startServe(['serve', '--db', db, ...args]);
    try {
      const second = await refused(['serve', '--db', db, ...args]);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`is in use by another payforge serve (pid ${first.proc.pid} on host ${hostname()}, started 20`);
      expect(second.stderr).toContain('Stop that instance first');

      // The same file under another name: a symlinked folder, and a relative path from its folder.
      const link = join(mkdtempSync(join(tmpdir(), 'pf-link-')), 'data');
      symlinkSync(dir, link);
      const viaLink = await refused(['serve', '--db', join(link, 'payforge.db'), ...args]);
      expect(viaLink.code).toBe(1);
      expect(viaLink.stderr).toContain(`pid ${first.proc.pid} on host`);
      const viaRelative = await refused(['serve', '--db', './payforge.db', ...args], dir);
      expect(viaRelative.code).toBe(1);
      expect(viaRelative.stderr).toContain(`pid ${first.proc.pid} on host`);

      // The first one never noticed: still serving.
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    // A clean stop releases the lease: the next serve starts at once.
    expect(leaseRow(db)).toBeNull();
    const next = await startServe(['serve', '--db', db, ...args]);
    expect(await next.stop()).toBe(0);
  });

  it('a frozen holder is taken over once its lease is stale (cluster.leaseSeconds); on waking it finds the lease lost and stops', async () => {
    const { db, args } = fresh(1);
    const first: Serve = await startServe(['serve', '--db', db, ...args]);
    let second: Serve | null = null;
    try {
      // Frozen (a paused VM, a stuck disk): alive to the OS, silent to the database. Once its
      // heartbeat is older than leaseSeconds, the next serve takes over.
      first.proc.kill('SIGSTOP');
      await waitFor(() => Date.now() - leaseRow(db)!.heartbeat_at > 1_000, 10_000, 'a stale lease');
      second = await startServe(['serve', '--db', db, ...args]);
      expect(second.stderr()).toContain('took over the instance lease');
      expect(second.stderr()).toContain(`"previous_pid":${first.proc.pid}`);
      expect(leaseRow(db)!.pid).toBe(second.proc.pid);

      first.proc.kill('SIGCONT');
      const code = await first.proc.exited;
      expect(code).toBe(1);
      expect(first.stderr()).toContain('instance lease lost');
      expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    } finally {
      first.proc.kill('SIGCONT');
      first.proc.kill('SIGKILL');
      if (second) expect(await second.stop()).toBe(0);
    }
  });

  it('a killed holder (its process is gone from this host) is taken over at once, without waiting for the lease', async () => {
    const { db, args } = fresh(600);
    const first: Serve = await startServe(['serve', '--db', db, ...args]);
    first.proc.kill('SIGKILL');
    await first.proc.exited;
    const second = await startServe(['serve', '--db', db, ...args]);
    expect(second.stderr()).toContain('took over the instance lease');
    expect(await second.stop()).toBe(0);
  });
});
