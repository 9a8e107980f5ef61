// bench/expiry-storm on PostgreSQL: a real cluster (test/support/postgres-cluster), bench/boot's
// rows (one live intent made by a real server, cloned by SQL) all past expires_at, booted by each
// tree of BENCH_TREES in turn (a fresh copy of the database each boot, alternated, 2 rounds).
// From the moment the server listens: /healthz every 20 ms and a create every 5th probe (what an
// API write waits for while the expiries are written), boot to /readyz, the time until every one
// expired. On PostgreSQL each expiry is a transaction of its own in the pool's queue.
//   bun bench/expiry-storm/postgres.ts      BENCH_LIVE=20000 BENCH_TREES="/base /this"
import { SQL } from 'bun';
import { join, resolve } from 'node:path';
import { freePort } from '../../test/support/cli';
import { startCluster } from '../../test/support/postgres-cluster';

const N = Number(process.env.BENCH_LIVE ?? 20_000);
const TREES = (process.env.BENCH_TREES ?? join(import.meta.dir, '../..'))
  .split(' ')
  .filter(Boolean)
  .map((t) => resolve(t));
const cluster = await startCluster();
const REQ = '0x1111111111111111111111111111111111111111';
async function serve(tree: string, url: string, extra: string[] = []) {
  const port = await freePort();
  const proc = Bun.spawn(
    [process.execPath, `${tree}/src/main.ts`, 'serve', ...extra, '--db', url, '--port', String(port)],
    { env: { ...process.env, PAYFORGE_LOG_LEVEL: 'error' }, stdout: 'pipe', stderr: 'inherit' },
  );
  return { proc, base: `http://127.0.0.1:${port}` };
}
try {
  const admin = new SQL(cluster.url());
  await admin.unsafe('CREATE DATABASE storm_src');
  const srcUrl = cluster.url('storm_src');
  const { proc, base } = await serve(TREES[0]!, srcUrl, ['--bootstrap']);
  const reader = proc.stdout.getReader();
  let out = '';
  while (!out.includes('\n')) out += new TextDecoder().decode((await reader.read()).value);
  const { testKey } = JSON.parse(out.slice(0, out.indexOf('\n')));
  const h = { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' };
  const body = JSON.stringify({
    chain: 'eip155:84532',
    token: 'USDC',
    amount: '12.34',
    requestor: REQ,
    ttlSeconds: 900,
  });
  await fetch(`${base}/v1/intents`, { method: 'POST', headers: h, body });
  proc.kill('SIGTERM');
  await proc.exited;
  const db = new SQL(srcUrl);
  const names = (await db.unsafe(`SELECT column_name FROM information_schema.columns WHERE table_name = 'intents'`)) as Array<{ column_name: string }>;
  const cols = names.map((r) => r.column_name).filter((c) => !['seq', 'id', 'snapshot', 'pay_token'].includes(c));
  const t = ((await db.unsafe(`SELECT id FROM intents WHERE state = 'created' LIMIT 1`)) as Array<{ id: string }>)[0]!.id;
  await db.unsafe(`INSERT INTO intents (id, snapshot, pay_token, ${cols.join(', ')})
     SELECT 'pi_L' || lpad(g::text, 23, '0'), replace(t.snapshot, t.id, 'pi_L' || lpad(g::text, 23, '0')), 'pt_L' || lpad(g::text, 31, '0'), ${cols.map((c) => `t.${c}`).join(', ')}
     FROM generate_series(1, ${N - 1}) g, intents t WHERE t.id = '${t}'`);
  await db.unsafe(`UPDATE intents SET expires_at = 1 WHERE state = 'created'`);
  await db.close();
  for (let r = 0; r < 2; r++)
    for (const tree of TREES) {
      await admin.unsafe('DROP DATABASE IF EXISTS storm_run');
      await admin.unsafe('CREATE DATABASE storm_run TEMPLATE storm_src');
      const { proc: p, base: b } = await serve(tree, cluster.url('storm_run'));
      const t0 = performance.now();
      while (
        !(await fetch(`${b}/healthz`).then(
          (x) => x.ok,
          () => false,
        ))
      )
        await Bun.sleep(10);
      const lags: number[] = [];
      const creates: number[] = [];
      let ready = 0;
      let done = 0;
      for (let n = 1; performance.now() - t0 < 90_000; n++) {
        let s = performance.now();
        await fetch(`${b}/healthz`).then((x) => x.arrayBuffer());
        lags.push(performance.now() - s);
        if (!ready && (await fetch(`${b}/readyz`)).status === 200) ready = performance.now() - t0;
        if (n % 5 === 0) {
          s = performance.now();
          const c = await fetch(`${b}/v1/intents`, { method: 'POST', headers: h, body });
          await c.arrayBuffer();
          creates.push(performance.now() - s);
        }
        if (ready && n % 25 === 0) {
          const m = await (await fetch(`${b}/metrics`)).text();
          if (Number(/^payforge_live_actors (\d+)/m.exec(m)?.[1]) <= creates.length) {
            done = performance.now() - t0;
            break;
          }
        }
        await Bun.sleep(20);
      }
      p.kill('SIGTERM');
      await p.exited;
      const q = (a: number[], f: number) => {
        const s = [...a].sort((x, y) => x - y);
        return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * f))]!.toFixed(0) : '-';
      };
      console.log(
        `${tree} N ${N}: ready ${ready.toFixed(0)} ms, done ${(done / 1000).toFixed(1)} s; healthz max ${q(lags, 1)} p99 ${q(lags, 0.99)} p50 ${q(lags, 0.5)}; create during storm (${creates.length}) max ${q(creates, 1)} p50 ${q(creates, 0.5)} ms`,
      );
    }
  await admin.close();
} finally {
  await cluster.destroy();
}
