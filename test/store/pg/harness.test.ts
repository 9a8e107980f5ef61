// The PostgreSQL test harness itself: real databases, one per test, a restartable cluster, a
// clear failure when PostgreSQL is missing, and no server left behind by a killed test process.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { describe, expect, it } from 'vitest';
import { findPostgresBin, freshDatabaseUrl, pgCluster } from '../../support/postgres';

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('test/support/postgres', () => {
  it('hands each test its own empty database on a real PostgreSQL', async () => {
    const a = new SQL(await freshDatabaseUrl());
    const b = new SQL(await freshDatabaseUrl());
    try {
      const [{ version }] = await a`SELECT version() AS version`;
      expect(version).toMatch(/^PostgreSQL \d+/);
      await a`CREATE TABLE t (id BIGINT PRIMARY KEY, amount TEXT NOT NULL)`;
      await a`INSERT INTO t ${a([{ id: 1, amount: '12340000' }])}`;
      expect([...(await a`SELECT id, amount FROM t`)]).toEqual([{ id: '1', amount: '12340000' }]);
      const [{ n }] = await b`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 't'`;
      expect(n).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('stops and starts the cluster on the same port, keeping the data', async () => {
    const url = await freshDatabaseUrl();
    const cluster = await pgCluster();
    const db = new SQL({ url, max: 1 });
    try {
      await db`CREATE TABLE kept (v TEXT)`;
      await db`INSERT INTO kept VALUES ('before')`;
      await cluster.stop();
      expect(cluster.running()).toBe(false);
      await expect(db`SELECT 1`).rejects.toThrow();
      await cluster.start();
      const again = new SQL({ url, max: 1 });
      expect([...(await again`SELECT v FROM kept`)]).toEqual([{ v: 'before' }]);
      await again.close();
    } finally {
      await db.close();
    }
  });

  it('fails with a message naming the package when no PostgreSQL is installed', () => {
    const empty = mkdtempSync(join(tmpdir(), 'payforge-nopg-'));
    try {
      expect(() => findPostgresBin(empty, '')).toThrow(/apt-get install -y postgresql/);
      expect(() => findPostgresBin(empty, join(empty, 'bin'))).toThrow(
        /PAYFORGE_PG_BIN=.*apt-get install -y postgresql/,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('stops the server and removes its folder when the owning process is killed -9', async () => {
    const child = spawn(
      process.execPath,
      [
        '-e',
        `
      const { startCluster } = await import(${JSON.stringify(join(import.meta.dirname, '../../support/postgres-cluster.ts'))});
      const c = await startCluster();
      console.log(JSON.stringify({ dataDir: c.dataDir, root: c.socketDir }));
      setInterval(() => {}, 1000);
    `,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const started = await new Promise<{ dataDir: string; root: string }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve(JSON.parse(line));
      });
      child.once('exit', (code) => reject(new Error(`child exited with ${code} before starting: ${out}`)));
    });
    const postmaster = Number(readFileSync(join(started.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(alive(postmaster)).toBe(true);
    child.kill('SIGKILL');
    await until('the postmaster to stop', () => !alive(postmaster));
    await until('the folder to be removed', () => !existsSync(started.root));
  });
});
