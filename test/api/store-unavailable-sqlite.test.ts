// Contract sections 7 and 13 on SQLite, end to end on a REAL disk (test/support/failing-disk.ts: an
// ext4 on a loop device; no mock of the disk) through a real `payforge serve`: when the store stops
// acknowledging writes, a request answers 503 store.unavailable with Retry-After and
// details.retry_after (before: 500 internal.error), and /readyz answers 503. A FULL disk (SQLITE_FULL)
// is ready and writable again once room is made; a failed sync (the disk's write-back failed) stays
// refused until a restart, and every create answered 201 is in the file after it.
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectError, waitFor } from '../support/api';
import { startServe } from '../support/cli';
import { type FailingDisk, failingDisk, fillBacking, freeBacking } from '../support/failing-disk';
import { type ApiResponse, client, intentBody } from '../support/server';

let disk: FailingDisk | null = null;
let serve: Awaited<ReturnType<typeof startServe>> | null = null;
let configDir: string | null = null;
afterEach(async () => {
  if (serve) {
    serve.proc.kill('SIGKILL');
    await serve.proc.exited;
  }
  serve = null;
  disk?.dispose();
  disk = null;
  if (configDir) rmSync(configDir, { recursive: true, force: true });
  configDir = null;
});

/** `payforge serve` on a file of the disk, with its bootstrap key; creates on the event loop or on the intent writer thread. */
async function serveOn(d: FailingDisk, writerThread: boolean) {
  const db = join(d.dir, 'payforge.db');
  // The config beside the test, not on the disk that fails.
  configDir = mkdtempSync(join(tmpdir(), 'pf-disk-config-'));
  const config = join(configDir, 'config.json');
  writeFileSync(config, JSON.stringify({ rateLimit: { perSecond: 1_000_000, burst: 1_000_000 }, sqlite: { writerThread } }));
  serve = await startServe(['serve', '--bootstrap', '--port', '0', '--db', db, '--config', config], { env: { PAYFORGE_LOG_LEVEL: 'error' } });
  return { db, url: serve.url, api: client(serve.url, serve.testKey!) };
}

const readyz = async (url: string) => (await fetch(`${url}/readyz`)).status;

let keys = 0;
/**
 * Creates, 32 at a time, until one is refused; every answer is 201 or 503 (never 500). Half carry an
 * Idempotency-Key (its claim row is a write of its own, outside the create's transaction).
 */
async function createUntilRefused(api: ReturnType<typeof client>, acked: string[]): Promise<ApiResponse> {
  for (let round = 0; round < 300; round++) {
    const answers = await Promise.all(
      Array.from({ length: 32 }, (_, i) => api.post('/v1/intents', intentBody(), i % 2 === 0 ? { 'idempotency-key': `k${keys++}` } : {})),
    );
    for (const a of answers) expect([201, 503], JSON.stringify(a.body)).toContain(a.status);
    for (const a of answers) if (a.status === 201) acked.push(a.body.intent.id);
    const refused = answers.find((a) => a.status === 503);
    if (refused) return refused;
  }
  throw new Error(`no create refused after ${acked.length} were acknowledged`);
}

/** Eight creates answered 201 before the disk turns: their ids. */
async function createSome(api: ReturnType<typeof client>): Promise<string[]> {
  const answers = await Promise.all(Array.from({ length: 8 }, () => api.post('/v1/intents', intentBody())));
  for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(201);
  return answers.map((a) => a.body.intent.id as string);
}

/** The 503 of contract section 7: store.unavailable, Retry-After equal to details.retry_after (integer seconds). */
function expectUnavailable(r: ApiResponse): void {
  const e = expectError(r, 503, 'store.unavailable');
  expect(Number.isInteger(e.details.retry_after)).toBe(true);
  expect(e.details.retry_after).toBeGreaterThan(0);
  expect(r.headers.get('retry-after')).toBe(String(e.details.retry_after));
}

/** The intents in the file as the disk really has it (the page cache dropped). */
function storedIds(d: FailingDisk, db: string): { ids: Set<string>; integrity: string } {
  d.remount();
  const sqlite = new Database(db);
  try {
    const integrity = (sqlite.query('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check;
    return { ids: new Set((sqlite.query('SELECT id FROM intents').all() as Array<{ id: string }>).map((r) => r.id)), integrity };
  } finally {
    sqlite.close();
  }
}

describe.each([
  ['on the event loop', false],
  ['on the intent writer thread', true],
])('SQLite store unavailable on a real disk, through the real server, creates written %s', (_, writerThread) => {
  it('a full disk: 503 store.unavailable with Retry-After and /readyz 503; once room is made, ready and creating again', async () => {
    // Smaller than its tmpfs: the ext4 itself fills (write() refused, SQLITE_FULL), nothing fails to write back.
    const d = (disk = failingDisk({ imageMb: 12 }));
    const { db, url, api } = await serveOn(d, writerThread);
    const acked = await createSome(api);
    expect(await readyz(url)).toBe(200);
    fillBacking(d.dir);
    expectUnavailable(await createUntilRefused(api, acked));
    expect(await readyz(url)).toBe(503);
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'unavailable' });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    freeBacking(d.dir);
    await waitFor(async () => (await readyz(url)) === 200, 30_000, '/readyz 200 once there is room');
    const after = await Promise.all(Array.from({ length: 8 }, () => api.post('/v1/intents', intentBody())));
    for (const a of after) expect(a.status, JSON.stringify(a.body)).toBe(201);
    acked.push(...after.map((a) => a.body.intent.id as string));
    const listed = await api.get('/v1/intents?limit=1');
    expect(listed.status).toBe(200);

    // No request met an error the server did not expect (500 internal.error, logged `unhandled error`).
    expect(serve!.stderr()).not.toContain('unhandled error');
    expect(await serve!.stop()).toBe(0);
    serve = null;
    const { ids, integrity } = storedIds(d, db);
    expect(integrity).toBe('ok');
    expect(acked.filter((id) => !ids.has(id))).toEqual([]);
  }, 120_000);

  it('a failed sync: 503 store.unavailable with Retry-After and /readyz 503, still refused once the disk is back; every 201 survives', async () => {
    // Larger than its tmpfs: once the tmpfs is full, write-back of new blocks fails (EIO), write() does not.
    const d = (disk = failingDisk());
    const { db, url, api } = await serveOn(d, writerThread);
    const acked = await createSome(api);
    expect(await readyz(url)).toBe(200);
    d.fill();
    expectUnavailable(await createUntilRefused(api, acked));
    expect(await readyz(url)).toBe(503);
    // A read answers 503 too: it could show rows a power loss may still take back.
    expectUnavailable(await api.get('/v1/intents'));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    // The disk back: the page cache cannot be trusted any more, so still refused until restart.
    d.free();
    expectUnavailable(await api.post('/v1/intents', intentBody()));
    expect(await readyz(url)).toBe(503);

    expect(serve!.stderr()).not.toContain('unhandled error');
    serve!.proc.kill('SIGKILL');
    await serve!.proc.exited;
    serve = null;
    const { ids, integrity } = storedIds(d, db);
    expect(integrity).toBe('ok');
    expect(acked.filter((id) => !ids.has(id))).toEqual([]);
  }, 120_000);
});
