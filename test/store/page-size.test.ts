// The SQLite page size (README Decisions: "SQLite page size: the default 4096, measured"). openDb
// is where every path opens a file (the server's store, its dispatcher and writer threads, the
// CLI's migrate): a new file gets 4096, and a file made with another page size (an older build,
// another tool) keeps it and serves creates through the real server: nothing depends on 4096.
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootstrapIfEmpty } from '../../src/bootstrap';
import { createCore } from '../../src/compose';
import { validate } from '../../src/config';
import { DEFAULT_CONFIG } from '../../src/config.types';
import { openDb } from '../../src/store/db';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'page-size-'));
  dirs.push(d);
  return join(d, 'p.db');
};
const pageSize = (s: Database) => s.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size;

describe('SQLite page size', () => {
  it('a new database file gets 4096-byte pages', () => {
    const path = fresh();
    const db = openDb(path);
    db.close();
    const s = new Database(path, { readonly: true });
    expect(pageSize(s)).toBe(4096);
    s.close();
  });

  it('a file made with 1024-byte pages keeps them through migrations and a running server', async () => {
    const path = fresh();
    const made = new Database(path, { create: true });
    made.exec('PRAGMA page_size = 1024');
    made.exec('CREATE TABLE made_elsewhere (a)');
    made.close();

    const config = validate({ ...structuredClone(DEFAULT_CONFIG), port: 0, db: path, logLevel: 'error' });
    const core = await createCore(config, {});
    try {
      const boot = await bootstrapIfEmpty(core.store);
      await core.boot();
      const body = JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '12.34', requestor: '0x1111111111111111111111111111111111111111' });
      const headers = { authorization: `Bearer ${boot!.testKey}`, 'content-type': 'application/json' };
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) {
        const res = await core.app.handle(new Request('http://localhost/v1/intents', { method: 'POST', headers, body }));
        expect(res.status).toBe(201);
        ids.push(((await res.json()) as { intent: { id: string } }).intent.id);
      }
      const back = await core.app.handle(new Request(`http://localhost/v1/intents/${ids[39]}`, { headers }));
      expect(back.status).toBe(200);
    } finally {
      await core.stop();
    }

    const s = new Database(path, { readonly: true });
    expect(pageSize(s)).toBe(1024);
    expect(s.query<{ n: number }, []>('SELECT count(*) AS n FROM intents').get()!.n).toBe(40);
    expect(s.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()!.integrity_check).toBe('ok');
    s.close();
  });
});
