// Issue 17: GET /v1/webhooks pages as /v1/events does (limit, starting_after = a delivery id,
// hasMore), so deliveries beyond the newest 100 can be reached. 150 real deliveries, written by
// 150 creates through the API with an endpoint configured.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectError } from '../support/api';
import { startReceiver, type Receiver } from '../support/receiver';
import { intentBody, startTestServer, type ApiClient, type TestServer } from '../support/server';

let s: TestServer;
let rx: Receiver;
let api: ApiClient;
const created: string[] = [];
beforeAll(async () => {
  rx = startReceiver();
  s = await startTestServer();
  const a = await s.account();
  api = s.api(a.key);
  await s.setEndpoint(a.accountId, 'test', rx.url('/hooks'));
  for (let n = 0; n < 150; n++) {
    const r = await api.post('/v1/intents', intentBody({ reference: `r${n}` }));
    expect(r.status).toBe(201);
    created.push(r.body.intent.id);
  }
}, 60_000);
afterAll(async () => {
  await s.stop();
  await rx.close();
});

type Page = { deliveries: { id: string; eventId: string }[]; hasMore: boolean };
type EventPage = { events: { eventId: string; data: { intent: { id: string } } }[]; hasMore: boolean };

async function allEvents(): Promise<EventPage['events']> {
  const out: EventPage['events'] = [];
  for (let after = ''; ; ) {
    const page = (await api.get<EventPage>(`/v1/events?limit=100${after}`)).body;
    out.push(...page.events);
    if (!page.hasMore) return out;
    after = `&starting_after=${page.events.at(-1)!.eventId}`;
  }
}

it('walks 150 deliveries newest first in pages, each once, hasMore false on the last', async () => {
  const first = await api.get<Page>('/v1/webhooks?limit=100');
  expect(first.status).toBe(200);
  expect(first.body.deliveries).toHaveLength(100);
  expect(first.body.hasMore).toBe(true);
  const last = first.body.deliveries.at(-1)!.id;
  const second = await api.get<Page>(`/v1/webhooks?limit=100&starting_after=${last}`);
  expect(second.body.deliveries).toHaveLength(50);
  expect(second.body.hasMore).toBe(false);

  const all = [...first.body.deliveries, ...second.body.deliveries];
  expect(new Set(all.map((d) => d.id)).size).toBe(150);
  // Each delivery carries the intent.created event of one create, newest create first.
  const events = new Map<string, string>();
  for (const e of await allEvents()) events.set(e.eventId, e.data.intent.id);
  expect(all.map((d) => events.get(d.eventId))).toEqual([...created].reverse());
});

it('the default page is 20, and small pages chain to the same order', async () => {
  const def = await api.get<Page>('/v1/webhooks');
  expect(def.body.deliveries).toHaveLength(20);
  expect(def.body.hasMore).toBe(true);
  const seen: string[] = [];
  let after = '';
  for (;;) {
    const r = await api.get<Page>(`/v1/webhooks?limit=40${after}`);
    seen.push(...r.body.deliveries.map((d) => d.id));
    if (!r.body.hasMore) break;
    after = `&starting_after=${r.body.deliveries.at(-1)!.id}`;
  }
  expect(seen).toHaveLength(150);
  expect(seen.slice(0, 20)).toEqual(def.body.deliveries.map((d) => d.id));
});

it('a cursor that is not a delivery of this account and mode is 400 starting_after', async () => {
  const mine = (await api.get<Page>('/v1/webhooks?limit=1')).body.deliveries[0]!.id;
  const other = s.api((await s.account()).key);
  expectError(await other.get(`/v1/webhooks?starting_after=${mine}`), 400, 'request.invalid_param', 'starting_after');
  expectError(await api.get('/v1/webhooks?starting_after=whd_nope'), 400, 'request.invalid_param', 'starting_after');
  expectError(await api.get('/v1/webhooks?limit=0'), 400, 'request.invalid_param', 'limit');
});
