// The databases bench/boot (and bench/expiry-storm) boot: made by a real server (one live and one
// cancelled intent through the API), then those rows cloned in SQLite: 100k live (and optionally
// 1M stored terminal) intents in seconds.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from 'bun:sqlite';
import { freePort, MAIN } from '../../test/support/cli';

const REQUESTOR = '0x1111111111111111111111111111111111111111';

function clone(db: string, live: number, stored: number, spread: boolean): void {
  const sqlite = new Database(db);
  const cols = (sqlite.query('PRAGMA table_info(intents)').all() as Array<{ name: string }>).map((c) => c.name).filter((c) => c !== 'seq' && c !== 'id' && c !== 'snapshot' && c !== 'pay_token');
  const copy = (state: string, n: number, tag: string) => {
    const t = sqlite.query('SELECT id FROM intents WHERE state = ? LIMIT 1').get(state) as { id: string } | null;
    if (!t) throw new Error(`no ${state} template intent`);
    sqlite.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO intents (id, snapshot, pay_token, ${cols.join(', ')})
       SELECT 'pi_${tag}' || printf('%023d', n.i), replace(t.snapshot, t.id, 'pi_${tag}' || printf('%023d', n.i)),
              'pt_${tag}' || printf('%031d', n.i), ${cols.map((c) => (spread && c === 'created_at' ? 't.created_at + n.i' : `t.${c}`)).join(', ')}
         FROM n, intents t WHERE t.id = ?`,
      [n, t.id],
    );
  };
  if (live > 1) copy('created', live - 1, 'L');
  if (stored > 1) copy('cancelled', stored - 1, 'S');
  sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)');
  sqlite.close();
}

/**
 * `spread`: each clone created 1 ms after the one before (as intents made over time are), not all
 * at the template's millisecond: the live scan reads a page per turn by (receiver, created_at), and
 * 100k intents of one receiver at one millisecond are one page.
 */
export async function makeDb(live: number, stored: number, spread = false): Promise<{ db: string; dir: string; bytesPerIntent: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'payforge-boot-'));
  const db = join(dir, 'payforge.db');
  // Bootstrap an account and key, then create the two template intents through the API.
  const port = await freePort();
  const proc = Bun.spawn([process.execPath, MAIN, 'serve', '--bootstrap', '--db', db, '--port', String(port)], {
    env: { ...process.env, PAYFORGE_LOG_LEVEL: 'error' },
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const reader = proc.stdout.getReader();
  let out = '';
  while (!out.includes('\n')) out += new TextDecoder().decode((await reader.read()).value);
  const { url, testKey } = JSON.parse(out.slice(0, out.indexOf('\n'))) as { url: string; testKey: string };
  const h = { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' };
  const create = () =>
    fetch(`${url}/v1/intents`, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '12.34', requestor: REQUESTOR, ttlSeconds: 604800, metadata: { order: 'bench' } }),
    }).then((r) => r.json() as Promise<{ intent: { id: string } }>);
  await create();
  const c = await create();
  await fetch(`${url}/v1/intents/${c.intent.id}/cancel`, { method: 'POST', headers: h });
  proc.kill('SIGTERM');
  await proc.exited;
  clone(db, live, stored, spread);
  const rows = live + stored;
  return { db, dir, bytesPerIntent: statSync(db).size / Math.max(1, rows) };
}

export function emptyDb(): { db: string; dir: string; bytesPerIntent: number } {
  const dir = mkdtempSync(join(tmpdir(), 'payforge-boot-'));
  return { db: join(dir, 'payforge.db'), dir, bytesPerIntent: 0 };
}
