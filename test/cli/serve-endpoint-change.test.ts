// An endpoint set by the CLI beside a running server (another process, WAL) counts for the next
// create's delivery row: the server remembers endpoint URLs per account only while migration
// 0018's count of endpoint writes stays where it was (src/store/outbox.ts), and reads that count in
// each write batch. The real serve process and CLI on a fresh database (either store).
import { describe, expect, it } from 'vitest';
import { runCli, startServe } from '../support/cli';
import { withRawSql } from '../support/raw-sql';
import { freshTestDatabase } from '../support/test-store';

const BODY = JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '1', requestor: '0x1111111111111111111111111111111111111111' });

describe('serve: an endpoint changed by the CLI', () => {
  it('the next create queues its delivery to the new URL; removed, none', async () => {
    const fresh = await freshTestDatabase();
    const { db } = fresh;
    const serve = await startServe(['serve', '--bootstrap', '--port', '0', '--db', db]);
    try {
      const create = async () => {
        const r = await fetch(`${serve.url}/v1/intents`, { method: 'POST', headers: { authorization: `Bearer ${serve.testKey}`, 'content-type': 'application/json' }, body: BODY });
        expect(r.status).toBe(201);
        return ((await r.json()) as { intent: { id: string } }).intent.id;
      };
      const urlOf = (intentId: string) =>
        withRawSql(db, (q) => q.all<{ url: string }>('SELECT d.url FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.intent_id = ?', intentId));
      // (Port 9: nothing answers; the rows are what is checked, not the sends.)
      for (const url of ['http://127.0.0.1:9/one', 'http://127.0.0.1:9/two']) {
        const set = await runCli(['webhooks', 'set-endpoint', '--mode', 'test', '--url', url, '--db', db]);
        expect(set.code, set.stderr).toBe(0);
        expect(await urlOf(await create())).toEqual([{ url }]);
      }
      await withRawSql(db, (q) => q.run("DELETE FROM webhook_endpoints WHERE mode = 'test'"));
      expect(await urlOf(await create())).toEqual([]);
    } finally {
      expect(await serve.stop()).toBe(0);
      fresh.dispose();
    }
  });
});
