// Issue 13 item 6, the delivery list: GET /v1/webhooks never shows credentials and shows at most a
// short, truncated excerpt of what a failing receiver answered.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withRawSql } from '../support/raw-sql';
import { waitFor } from '../support/api';
import { startReceiver, type Receiver } from '../support/receiver';
import { intentBody, startTestServer, type ApiClient, type TestServer } from '../support/server';

let s: TestServer;
let rx: Receiver;
let api: ApiClient;
let accountId: string;
beforeAll(async () => {
  rx = startReceiver();
  s = await startTestServer({ webhooks: { retryScheduleSeconds: [3600] } });
  const a = await s.account();
  accountId = a.accountId;
  api = s.api(a.key);
});
afterAll(async () => {
  await s.stop();
  await rx.close();
});

it('a failing receiver\'s long answer is cut to a short excerpt; credentials never appear', async () => {
  const secretPage = `<html>${'internal stack trace and tokens '.repeat(200)} password=hunter2 </html>`;
  rx.setHandler(() => ({ status: 500, body: secretPage }));
  await s.setEndpoint(accountId, 'test', rx.url('/hooks'));
  await api.post('/v1/intents', intentBody());
  const d = await waitFor(async () => {
    const list = (await api.get('/v1/webhooks')).body.deliveries as any[];
    return list.find((x) => x.attemptCount >= 1);
  }, 10_000, 'a failed attempt');
  expect(d.responseStatus).toBe(500);
  expect(d.lastError.startsWith('HTTP 500: <html>internal stack trace')).toBe(true);
  expect(d.lastError.length).toBeLessThanOrEqual(120);
  expect(d.lastError).not.toContain('hunter2');

  // A row written before credentials were refused (or by hand): listed without them.
  await withRawSql(s.db, (q) =>
    q.run('UPDATE webhook_deliveries SET url = ?, last_error = ? WHERE id = ?', 'http://user:s3cret@127.0.0.1:1/hooks', 'redirect not followed (Location: https://admin:pw@intranet.example/)', d.id),
  );
  const again = ((await api.get('/v1/webhooks')).body.deliveries as any[]).find((x) => x.id === d.id);
  expect(again.url).toBe('http://127.0.0.1:1/hooks');
  expect(again.lastError).toBe('redirect not followed (Location: https://intranet.example/)');
  expect(JSON.stringify(again)).not.toMatch(/s3cret|admin:pw|user:/);
});
