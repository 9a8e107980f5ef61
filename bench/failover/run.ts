// bench/failover (issue 12): how long after a kill -9 of the instance that owns a pending intent
// the first event written by its new owner reaches the webhook receiver. Three `payforge serve`
// processes on one PostgreSQL database, Base Sepolia on anvil with mining held. Each round: an
// intent is created in a shard held by the instance that also holds Base's detection lease (so no
// live instance can report the transfer before a takeover), and that owner builds and submits the transfer
// (pending, the transfer in anvil's mempool), then the owner is killed with SIGKILL and at once
// one block is mined, so the receipt exists from the moment of the kill: the time to the
// intent.confirmed webhook is the takeover (lease expiry, take, resync of the shard) plus one
// watcher tick and the delivery. Same-run baseline: the same round with no kill (the owner
// alive), i.e. block -> webhook. A replacement instance is started after each kill.
// Usage: bun bench/failover/run.ts [--write]
import { SQL } from 'bun';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { startCluster } from '../../test/support/postgres-cluster';
import { startInstances, type Instance } from '../../test/support/instances';
import { activeLeases, Owners, shardOfIntent } from '../../test/support/leases';
import { startReceiver } from '../../test/support/receiver';
import { client } from '../../test/support/server';
import { DEV_KEYS, startAnvil } from '../../test/support/evm/anvil';
import { signBlob } from '../../test/support/evm/chain';
import { deployToken } from '../../test/support/evm/token';
import { env } from '../support/env';
import { machine } from '../support/machine';
import { writeResults } from '../support/results-md';

const ROUNDS = env('BENCH_ROUNDS', 3);
const LEASES = (process.env.BENCH_LEASE_SECONDS ?? '10,3').split(',').map(Number);
const POLL_MS = env('BENCH_POLL_MS', 100);
const WRITE = process.argv.includes('--write');
const BASE = 'eip155:84532';

async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

interface Round {
  /** kill (or, in the baseline, the block) -> intent.confirmed at the receiver, ms. */
  toEvent: number;
  /** kill -> a live instance holds the shard lease, ms (kill rounds only). */
  toLease: number | null;
}

const pg = await startCluster({ fsync: true });
const admin = new SQL({ url: pg.url(), max: 1 });
const anvil = await startAnvil('base');
const rx = startReceiver();
const payer = privateKeyToAccount(DEV_KEYS[6]);
const usdc: Hex = await deployToken(anvil, { [payer.address]: 10n ** 15n });
await anvil.rpc('evm_setAutomine', [false]);
const results: Array<{ lease: number; kill: Round[]; baseline: Round[] }> = [];

try {
  for (const lease of LEASES) {
    const name = `failover_${lease}_${process.pid}`;
    await admin.unsafe(`CREATE DATABASE "${name}"`);
    const db = pg.url(name);
    const sql = new SQL({ url: db, max: 1 });
    const cluster = await startInstances({
      db,
      count: 1,
      readyTimeoutMs: 120_000,
      config: {
        logLevel: 'error',
        cluster: { leaseSeconds: lease },
        networks: { [BASE]: { rpc: [anvil.url], pollIntervalMs: POLL_MS, tokens: { USDC: { address: usdc, decimals: 6 } } } },
      },
    });
    try {
      const owners = new Owners(sql);
      await owners.addAll(cluster, 3);
      const { key, accountId } = await cluster.account({ name: 'bench' });
      await cluster.setEndpoint(accountId, 'test', rx.url(`/l${lease}`));
      const confirmedAt = (id: string) =>
        rx.on(`/l${lease}`).find((r) => r.body.includes(id) && JSON.parse(r.body).type === 'intent.confirmed')?.receivedAt;

      const detect = `detect:${BASE}`;
      /**
       * An intent made pending by its owner, the transfer held in the mempool, whose shard is held
       * by the same instance as the chain's detection lease: detection (which finds any transfer
       * to a watched receiver) would otherwise report the block from a live instance without any
       * takeover. Intents made while looking for such a shard just stay created.
       */
      async function pendingIntent(): Promise<{ id: string; owner: Instance }> {
        const any = client(cluster.pick(0).url, key);
        for (let tries = 0; tries < 60; tries++) {
          const shards = await owners.settled(3);
          const detector = (await activeLeases(sql)).find((x) => x.name === detect)?.owner;
          const created = await any.post('/v1/intents', { chain: BASE, token: 'USDC', amount: '1.5', requestor: privateKeyToAccount(generatePrivateKey()).address });
          if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
          const id = created.body.intent.id as string;
          const owner = owners.ownerOfIntent(shards, id);
          if (owners.byInstance.get(owner) !== detector) continue;
          const api = owner.api(key);
          const built = await api.post(`/v1/intents/${id}/build`, { fulfiller: payer.address });
          const sub = await api.post(`/v1/intents/${id}/submit`, { signedTransaction: await signBlob(payer, built.body.transaction.blob) });
          if (sub.status !== 200) throw new Error(`submit: ${sub.status} ${JSON.stringify(sub.body)}`);
          return { id, owner };
        }
        throw new Error(`no intent landed in a shard of the holder of ${detect} in 60 tries`);
      }

      /** Both leases still with the instance that took the intent (else this round is tried again). */
      async function stillHolds(owner: Instance, id: string): Promise<boolean> {
        const rows = await activeLeases(sql);
        const o = owners.byInstance.get(owner);
        return rows.some((x) => x.name === shardOfIntent(id) && x.owner === o) && rows.some((x) => x.name === detect && x.owner === o);
      }

      const kill: Round[] = [];
      const baseline: Round[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        // Baseline: the owner alive; the block is mined and the owner reports it.
        const b = await pendingIntent();
        const w0 = Date.now();
        await anvil.rpc('evm_mine', []);
        const at = await until(() => confirmedAt(b.id), 60_000, 'baseline intent.confirmed');
        baseline.push({ toEvent: at - w0, toLease: null });

        // Failover: kill -9 the owner, the block mined at once; a survivor must take over.
        let k = await pendingIntent();
        while (!(await stillHolds(k.owner, k.id))) {
          await anvil.rpc('evm_mine', []); // the held transfer lands; a fresh intent for the kill
          k = await pendingIntent();
        }
        const shard = shardOfIntent(k.id);
        const victimOwner = owners.byInstance.get(k.owner);
        const k0 = Date.now();
        await k.owner.kill9();
        await anvil.rpc('evm_mine', []);
        const leaseAt = until(
          async () => {
            const row = (await activeLeases(sql)).find((x) => x.name === shard);
            return row && row.owner !== victimOwner ? Date.now() : undefined;
          },
          120_000,
          'the shard taken over',
        );
        const eventAt = await until(() => confirmedAt(k.id), 120_000, 'intent.confirmed after the kill');
        kill.push({ toEvent: eventAt - k0, toLease: (await leaseAt) - k0 });
        console.error(`lease ${lease}s round ${r + 1}: failover ${eventAt - k0} ms, baseline ${baseline.at(-1)!.toEvent} ms`);
        // Back to three instances for the next round.
        await owners.learn(await cluster.add());
      }
      results.push({ lease, kill, baseline });
    } finally {
      await cluster.stop();
      await sql.close();
    }
  }
} finally {
  await admin.close().catch(() => {});
  await rx.close();
  await anvil.stop();
  await pg.destroy();
}

const fmt = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[0]} / ${s[Math.floor(s.length / 2)]} / ${s.at(-1)}`;
};
const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const md = [
  `Run ${date} · ${machine()}`,
  `Three \`payforge serve\` processes on one PostgreSQL 15 database (fsync on), Base Sepolia on anvil (mining held, watcher pollIntervalMs ${POLL_MS}), webhooks to a loopback receiver (default dispatcher settings). ${ROUNDS} rounds per lease setting; each kill round kills the instance holding both the intent's shard lease and Base's detection lease (either would otherwise report the block without a takeover) and mines its held transfer at once; a replacement instance joins before the next round. Times are min / median / max in ms.`,
  '',
  '| cluster.leaseSeconds | kill -9 → shard lease held by a survivor | kill -9 → first event of the new owner at the receiver (intent.confirmed) | baseline: block → intent.confirmed, owner alive (same run) |',
  '|---:|---:|---:|---:|',
  ...results.map(
    (x) => `| ${x.lease} | ${fmt(x.kill.map((k) => k.toLease!))} | ${fmt(x.kill.map((k) => k.toEvent))} | ${fmt(x.baseline.map((b) => b.toEvent))} |`,
  ),
].join('\n');
console.log(md);
if (WRITE) console.log(`\nwritten to ${writeResults('failover', md)}`);
