// The lease keeper on both engines with real databases: instances split the shards, a stopped or
// dead instance's leases are taken over within cluster.leaseSeconds, and the old holder's writes
// are fenced out once they are.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkLeases, SHARDS, type WorkLeases } from '../../src/actors/work-leases';
import type { Log } from '../../src/log';
import { engines, postgresEngine, type Conn, type Shared } from '../support/lease-engines';

const L = 4;
const quiet: Log = () => {};

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out (${timeoutMs} ms) waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const shards = (k: WorkLeases) => k.held().filter((n) => n.startsWith('shard:'));

for (const engine of engines) {
  describe(`work leases on ${engine.name}`, () => {
    let shared: Shared | null = null;
    const keepers: WorkLeases[] = [];
    afterEach(async () => {
      for (const k of keepers.splice(0)) await k.stop();
      await shared?.dispose();
      shared = null;
    });

    function keeper(conn: Conn, owner: string, events: string[] = []): WorkLeases {
      const k = createWorkLeases({
        store: conn.leases, owner, chains: ['base', 'solana'], leaseSeconds: L, log: quiet,
        onGained: (g) => events.push(...g.map((h) => `+${h.name}`)),
        onLost: (names) => events.push(...names.map((n) => `-${n}`)),
      });
      keepers.push(k);
      return k;
    }

    it('one instance holds everything; two split the 16 shards and the chains evenly, disjoint', async () => {
      shared = await engine.open();
      const a = keeper(shared.connect(), 'A');
      await a.start();
      expect(shards(a)).toHaveLength(SHARDS);
      expect(a.fenceForChain('base')).not.toBeNull();
      expect(a.fenceForIntent('pi_anything')).not.toBeNull();

      const b = keeper(shared.connect(), 'B');
      await b.start();
      // A gives one away per look; B takes what is free, up to its share (8 shards, 1 chain).
      await until('an even split', () => shards(a).length === 8 && shards(b).length === 8 && b.held().length === 9);
      expect(new Set([...a.held(), ...b.held()]).size).toBe(SHARDS + 2);
      expect(a.held().filter((n) => n.startsWith('detect:'))).toHaveLength(1);
    });

    it('a clean stop hands everything to the other instance at once', async () => {
      shared = await engine.open();
      const a = keeper(shared.connect(), 'A');
      const b = keeper(shared.connect(), 'B');
      await Promise.all([a.start(), b.start()]);
      await until('an even split', () => shards(a).length === 8 && shards(b).length === 8);
      const stoppedAt = Date.now();
      await a.stop();
      expect(a.held()).toEqual([]);
      await until('B to hold every lease', () => b.held().length === SHARDS + 2, L * 1000);
      expect(Date.now() - stoppedAt).toBeLessThanOrEqual(L * 1000);
    });

    it('a dead instance (no release, no renewal) is taken over within leaseSeconds, and its writes are fenced out', async () => {
      shared = await engine.open();
      const aConn = shared.connect();
      const a = keeper(aConn, 'A');
      const bEvents: string[] = [];
      const b = keeper(shared.connect(), 'B', bEvents);
      await Promise.all([a.start(), b.start()]);
      await until('an even split', () => shards(a).length === 8 && shards(b).length === 8);
      const old = a.fence(shards(a)[0]!)!;
      expect(await aConn.transaction((l) => Promise.resolve(l.check(old.name, old.epoch, 'A')))).toBe(true);

      a.halt();
      const diedAt = Date.now();
      await until('B to hold every lease', () => b.held().length === SHARDS + 2, L * 1000);
      expect(Date.now() - diedAt).toBeLessThanOrEqual(L * 1000);
      expect(bEvents).toContain(`+${old.name}`);
      const now = b.fence(old.name)!;
      expect(now.epoch).toBeGreaterThan(old.epoch);

      // The old holder's write, fenced with what it held, is refused in its own transaction.
      expect(await aConn.transaction((l) => Promise.resolve(l.check(old.name, old.epoch, 'A')))).toBe(false);
      // And the old holder stops counting on it by itself once its TTL has passed unrenewed.
      expect(a.fence(old.name)).toBeNull();
    });
  });
}

describe('work leases across processes on postgres', () => {
  it('kill -9 of the instance holding half the leases: the other holds all of them within leaseSeconds', async () => {
    const shared = await postgresEngine.open();
    const b = createWorkLeases({ store: shared.connect().leases, owner: 'B', chains: ['base', 'solana'], leaseSeconds: L, log: quiet });
    const child = spawn(process.execPath, [new URL('../support/lease-keeper-child.ts', import.meta.url).pathname, shared.url, 'A', String(L)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let childHeld: string[] = [];
      let buf = '';
      child.stdout!.on('data', (c: Buffer) => {
        buf += c.toString();
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          childHeld = (JSON.parse(buf.slice(0, i)) as { held: string[] }).held;
          buf = buf.slice(i + 1);
        }
      });
      await until('the child to hold its first leases', () => childHeld.length > 0);
      await b.start();
      await until('an even split between the processes', () => shards(b).length === 8 && childHeld.filter((n) => n.startsWith('shard:')).length === 8, 30_000);
      expect(new Set([...childHeld, ...b.held()]).size).toBe(SHARDS + 2);

      child.kill('SIGKILL');
      const killedAt = Date.now();
      await until('B to hold every lease', () => b.held().length === SHARDS + 2, L * 1000);
      expect(Date.now() - killedAt).toBeLessThanOrEqual(L * 1000);
    } finally {
      child.kill('SIGKILL');
      await b.stop();
      await shared.dispose();
    }
  });
});
