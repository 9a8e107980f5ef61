// Claims and leases on both engines, several connections on one database (as several instances
// or processes have): one winner per claim, expiry frees, epochs only grow, fencing sees a takeover.
import { SQL } from 'bun';
import { afterEach, describe, expect, it } from 'vitest';
import { statesTagged } from '../../machines/judge';
import { openPgStore } from '../../src/store/pg/open';
import { engines, postgresEngine, type Shared } from '../support/lease-engines';
import { freshDatabaseUrl } from '../support/postgres';

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const engine of engines) {
  describe(`claims and leases on ${engine.name}`, () => {
    let shared: Shared | null = null;
    afterEach(async () => {
      await shared?.dispose();
      shared = null;
    });

    it('two concurrent claimers of one key: exactly one wins, until it releases', async () => {
      shared = await engine.open();
      const a = shared.connect().claims('inst_a');
      const b = shared.connect().claims('inst_b');
      for (let i = 0; i < 20; i++) {
        const key = `key_${i}`;
        const [ta, tb] = await Promise.all([a.claim('idempotency', key, 60_000), b.claim('idempotency', key, 60_000)]);
        expect([ta, tb].filter((t) => t !== null)).toHaveLength(1);
        expect(await a.held('idempotency', key)).toBe(true);
        // The same instance is refused too (two requests of one process).
        expect(await (ta ? a : b).claim('idempotency', key, 60_000)).toBeNull();
        const [winner, token] = ta ? [a, ta] : [b, tb!];
        await winner.release('idempotency', key, token);
        expect(await b.held('idempotency', key)).toBe(false);
        expect(await b.claim('idempotency', key, 60_000)).not.toBeNull();
      }
      // Kinds are separate namespaces.
      expect(await a.claim('broadcast', 'key_0', 60_000)).not.toBeNull();
    });

    it('an expired claim is taken again, and the old holder cannot release the new one', async () => {
      shared = await engine.open();
      const a = shared.connect().claims('inst_a');
      const b = shared.connect().claims('inst_b');
      const old = await a.claim('broadcast', 'base|0xabc', 50);
      expect(old).not.toBeNull();
      await until('the claim to expire', async () => !(await b.held('broadcast', 'base|0xabc')));
      const fresh = await b.claim('broadcast', 'base|0xabc', 60_000);
      expect(fresh).not.toBeNull();
      await a.release('broadcast', 'base|0xabc', old!);
      expect(await a.held('broadcast', 'base|0xabc')).toBe(true);
      expect(await a.claim('broadcast', 'base|0xabc', 60_000)).toBeNull();
    });

    it('a lease is taken once, its epoch grows on every take, and fencing sees a takeover', async () => {
      shared = await engine.open();
      const a = shared.connect();
      const b = shared.connect();
      const [ga, gb] = await Promise.all([a.leases.take(['shard:3', 'shard:4'], 'A', 60_000), b.leases.take(['shard:4', 'shard:3'], 'B', 60_000)]);
      expect([...ga, ...gb].map((h) => h.name).sort()).toEqual(['shard:3', 'shard:4']);
      const holder = ga.length > 0 ? a : b;
      const other = holder === a ? b : a;
      const [hName, oName] = holder === a ? ['A', 'B'] : ['B', 'A'];
      const grants = ga.length > 0 ? ga : gb;
      expect(grants.every((g) => g.epoch === 1)).toBe(true);
      expect(await other.leases.take(['shard:3'], oName, 60_000)).toEqual([]);
      expect(await holder.leases.renew(grants, hName, 60_000)).toEqual(expect.arrayContaining(['shard:3', 'shard:4']));
      // A renewal at a stale epoch, or by another owner, extends nothing.
      expect(await other.leases.renew([{ name: 'shard:3', epoch: 1 }], oName, 60_000)).toEqual([]);

      // Released (or expired): the other takes it at epoch 2; the old (name, epoch) is fenced out.
      await holder.leases.release([{ name: 'shard:3', epoch: 1 }], hName);
      expect(await other.leases.take(['shard:3'], oName, 60_000)).toEqual([{ name: 'shard:3', epoch: 2 }]);
      expect(await holder.transaction((l) => Promise.resolve(l.check('shard:3', 1, hName)))).toBe(false);
      expect(await other.transaction((l) => Promise.resolve(l.check('shard:3', 2, oName)))).toBe(true);
      expect(await holder.leases.renew([{ name: 'shard:3', epoch: 1 }], hName, 60_000)).toEqual([]);

      // Expiry frees it the same way (epoch 3), and the active list shows only unexpired rows.
      await other.leases.renew([{ name: 'shard:3', epoch: 2 }], oName, 30);
      await until('the lease to expire', async () => !(await holder.leases.active('shard:')).some((r) => r.name === 'shard:3'));
      expect(await holder.leases.take(['shard:3'], hName, 60_000)).toEqual([{ name: 'shard:3', epoch: 3 }]);
      expect((await other.leases.active('shard:')).map((r) => [r.name, r.owner, r.epoch])).toEqual([
        ['shard:3', hName, 3],
        ['shard:4', hName, 1],
      ]);
    });
  });
}

describe('fencing on postgres', () => {
  it('a takeover waits for the fenced write that holds the lease row, then raises the epoch', async () => {
    const shared = await postgresEngine.open();
    try {
      const a = shared.connect();
      const b = shared.connect();
      expect(await a.leases.take(['detect:base'], 'A', 30)).toEqual([{ name: 'detect:base', epoch: 1 }]);
      await until('the lease to expire', async () => (await b.leases.active('detect:')).length === 0);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let checked!: () => void;
      const inside = new Promise<void>((r) => (checked = r));
      // A's write checked its fence (still A's at epoch 1: expired but not taken) and is not committed yet.
      const write = a.transaction(async (l) => {
        const ok = await l.check('detect:base', 1, 'A');
        checked();
        await held;
        return ok;
      });
      await inside;
      const takeover = b.leases.take(['detect:base'], 'B', 60_000);
      // B's take is blocked on A's row lock (seen in pg_stat_activity), not merely slow.
      const probe = new SQL({ url: shared.url, max: 1 });
      try {
        await until('the takeover to wait on the lease row', async () => {
          const rows = await probe`SELECT 1 FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO leases%'`;
          return rows.length > 0;
        });
      } finally {
        await probe.close();
      }
      release();
      expect(await write).toBe(true);
      expect(await takeover).toEqual([{ name: 'detect:base', epoch: 2 }]);
      expect(await a.transaction((l) => Promise.resolve(l.check('detect:base', 1, 'A')))).toBe(false);
    } finally {
      await shared.dispose();
    }
  });
});

describe('in-flight guards across two PostgreSQL stores (two instances)', () => {
  it('an idempotency key or a broadcast claimed by one instance is refused to the other until released', async () => {
    const url = await freshDatabaseUrl();
    const states = { live: statesTagged('live'), watching: statesTagged('watching') };
    const a = await openPgStore(url, { states, instanceId: 'inst_a' });
    const b = await openPgStore(url, { states, instanceId: 'inst_b' });
    try {
      const both = await Promise.all([a.repos.idempotency.claim('acct_1', 'test', 'k'), b.repos.idempotency.claim('acct_1', 'test', 'k')]);
      expect(both.filter(Boolean)).toHaveLength(1);
      const [winner, loser] = both[0] ? [a, b] : [b, a];
      // Inside the other's transactions too (reconciliation reads it there).
      expect(await loser.transact((tx) => Promise.resolve(tx.idempotency.claim('acct_1', 'test', 'k')))).toBe(false);
      await winner.repos.idempotency.release('acct_1', 'test', 'k');
      expect(await loser.repos.idempotency.claim('acct_1', 'test', 'k')).toBe(true);

      expect(await a.repos.submissions.claimBroadcast('eip155:8453', '0xab')).toBe(true);
      expect(await b.repos.submissions.isBroadcasting('eip155:8453', '0xab')).toBe(true);
      expect(await b.repos.submissions.claimBroadcast('eip155:8453', '0xab')).toBe(false);
      await a.repos.submissions.releaseBroadcast('eip155:8453', '0xab');
      expect(await b.repos.submissions.isBroadcasting('eip155:8453', '0xab')).toBe(false);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
