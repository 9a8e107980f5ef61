// The live view's event stream over real HTTP: only the session's chosen account and mode,
// transitions with the state before and after, resumption from Last-Event-ID, and a server stop
// that does not wait on open streams. (The page itself runs in Chromium: test/browser/dashboard-live.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_MAINNET, intentBody, startTestServer, type TestServer } from '../support/server';

const TOKEN = 'live-admin-token-0123456789';

interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

/** An open text/event-stream: parsed events as they arrive. */
interface Sse {
  status: number;
  contentType: string | null;
  events: SseEvent[];
  /** Wait until `pred` holds over the events so far (deadline, never a fixed sleep). */
  until(pred: (events: SseEvent[]) => boolean, what: string, ms?: number): Promise<void>;
  close(): void;
}

async function openSse(url: string, headers: Record<string, string>): Promise<Sse> {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers, signal: ctrl.signal, redirect: 'manual' });
  const events: SseEvent[] = [];
  let waiters: Array<() => void> = [];
  let ended = false;
  if (res.ok && res.body) {
    void (async () => {
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let i: number;
          while ((i = buf.indexOf('\n\n')) !== -1) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const ev: SseEvent = { id: null, event: 'message', data: '' };
            let hasData = false;
            for (const line of block.split('\n')) {
              if (line.startsWith('id: ')) ev.id = line.slice(4);
              else if (line.startsWith('event: ')) ev.event = line.slice(7);
              else if (line.startsWith('data: ')) {
                ev.data += line.slice(6);
                hasData = true;
              }
            }
            if (hasData) events.push(ev);
          }
          for (const w of waiters) w();
          waiters = [];
        }
      } catch {
        /* aborted */
      }
      ended = true;
      for (const w of waiters) w();
    })();
  }
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    events,
    async until(pred, what, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (!pred(events)) {
        if (ended) throw new Error(`stream ended before ${what}; got ${events.map((e) => e.data).join('\n')}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${events.map((e) => e.data).join('\n')}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
    },
    close: () => ctrl.abort(),
  };
}

const parsed = (events: SseEvent[]) => events.filter((e) => e.event === 'intent').map((e) => JSON.parse(e.data) as { seq: number; type: string; intentId: string; from: string | null; to: string });

describe('dashboard live events', () => {
  let s: TestServer;
  let cookie: string;
  beforeAll(async () => {
    s = await startTestServer({ adminToken: TOKEN });
    const res = await fetch(`${s.url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url },
      body: new URLSearchParams({ token: TOKEN }).toString(),
    });
    expect(res.status).toBe(303);
    cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  });
  afterAll(async () => s?.stop());

  it('refuses without a session, and for an unknown account or mode', async () => {
    const { accountId } = await s.account();
    expect((await fetch(`${s.url}/dashboard/live/events?account=${accountId}&mode=test`)).status).toBe(401);
    expect((await fetch(`${s.url}/dashboard/live/events?account=acct_nope&mode=test`, { headers: { cookie } })).status).toBe(404);
    expect((await fetch(`${s.url}/dashboard/live/events?account=${accountId}&mode=both`, { headers: { cookie } })).status).toBe(400);
  });

  it("streams one account and mode's transitions as they commit, never another's", async () => {
    const a = await s.account({ name: 'Streamed' });
    const b = await s.account({ name: 'Other' });
    const aLive = await s.key(a.accountId, 'live');
    const sse = await openSse(`${s.url}/dashboard/live/events?account=${a.accountId}&mode=test`, { cookie });
    expect(sse.status).toBe(200);
    expect(sse.contentType).toContain('text/event-stream');

    // Another account's test intent and this account's live-mode intent are committed first.
    const other = (await s.api(b.key).post('/v1/intents', intentBody())).body.intent.id as string;
    expect((await s.api(b.key).post(`/v1/test/intents/${other}/simulate`, { targetState: 'confirmed' })).status).toBe(200);
    const liveMode = await s.api(aLive).post('/v1/intents', intentBody({ chain: BASE_MAINNET }));
    expect(liveMode.status).toBe(201);
    const mine = (await s.api(a.key).post('/v1/intents', intentBody({ reference: 'streamed-1' }))).body.intent.id as string;
    expect((await s.api(a.key).post(`/v1/test/intents/${mine}/simulate`, { targetState: 'confirmed' })).status).toBe(200);
    expect((await s.api(a.key).post(`/v1/test/intents/${mine}/simulate`, { targetState: 'finalized' })).status).toBe(200);

    await sse.until((ev) => parsed(ev).some((e) => e.type === 'intent.finalized'), 'intent.finalized');
    const got = parsed(sse.events);
    expect(got.map((e) => [e.type, e.intentId, e.from, e.to])).toEqual([
      ['intent.created', mine, null, 'created'],
      ['intent.confirmed', mine, 'created', 'confirmed'],
      ['intent.finalized', mine, 'confirmed', 'finalized'],
    ]);
    // Each carries its position as the SSE id, in commit order.
    const ids = sse.events.filter((e) => e.event === 'intent').map((e) => Number(e.id));
    expect(ids).toEqual(got.map((e) => e.seq));
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);
    sse.close();

    // A reconnecting browser sends Last-Event-ID: it gets what came after, nothing twice.
    const resumed = await openSse(`${s.url}/dashboard/live/events?account=${a.accountId}&mode=test&after=0`, { cookie, 'last-event-id': String(ids[0]) });
    await resumed.until((ev) => parsed(ev).length >= 2, 'the two later events');
    expect(parsed(resumed.events).map((e) => e.type)).toEqual(['intent.confirmed', 'intent.finalized']);
    resumed.close();

    // after=0 with no Last-Event-ID: the account's whole history, still only its own.
    const all = await openSse(`${s.url}/dashboard/live/events?account=${a.accountId}&mode=live&after=0`, { cookie });
    await all.until((ev) => parsed(ev).length >= 1, 'the live-mode intent');
    expect(parsed(all.events).map((e) => e.intentId)).toEqual([liveMode.body.intent.id]);
    all.close();
  });

  it("with ?intent= follows that intent's events only (its own page)", async () => {
    const a = await s.account();
    const one = (await s.api(a.key).post('/v1/intents', intentBody())).body.intent.id as string;
    const two = (await s.api(a.key).post('/v1/intents', intentBody())).body.intent.id as string;
    expect((await fetch(`${s.url}/dashboard/live/events?account=${a.accountId}&mode=test&intent=no%20such`, { headers: { cookie } })).status).toBe(400);
    const sse = await openSse(`${s.url}/dashboard/live/events?account=${a.accountId}&mode=test&intent=${one}&after=0`, { cookie });
    expect((await s.api(a.key).post(`/v1/test/intents/${two}/simulate`, { targetState: 'confirmed' })).status).toBe(200);
    expect((await s.api(a.key).post(`/v1/test/intents/${one}/simulate`, { targetState: 'failed' })).status).toBe(200);
    await sse.until((ev) => parsed(ev).some((e) => e.type === 'intent.failed'), 'intent.failed');
    expect(parsed(sse.events).map((e) => [e.type, e.intentId, e.to])).toEqual([
      ['intent.created', one, 'created'],
      ['intent.failed', one, 'failed'],
    ]);
    sse.close();
  });

  it('sends a backlog longer than one batch (200) whole, in order, each event once', { timeout: 60_000 }, async () => {
    const a = await s.account();
    for (let i = 0; i < 210; i += 30) {
      const n = Math.min(30, 210 - i);
      const made = await Promise.all(Array.from({ length: n }, () => s.api(a.key).post('/v1/intents', intentBody())));
      expect(made.map((r) => r.status)).toEqual(Array(n).fill(201));
    }
    const sse = await openSse(`${s.url}/dashboard/live/events?account=${a.accountId}&mode=test&after=0`, { cookie });
    await sse.until((ev) => parsed(ev).length >= 210, '210 events', 30_000);
    const seqs = parsed(sse.events).map((e) => e.seq);
    expect(seqs.length).toBe(210);
    expect(seqs.every((q, i) => i === 0 || q > seqs[i - 1]!)).toBe(true);
    sse.close();
  });

  it('a server stop ends open streams instead of waiting for them', async () => {
    const own = await startTestServer({ adminToken: TOKEN });
    let stopped = false;
    try {
      const { accountId } = await own.account();
      const login = await fetch(`${own.url}/dashboard/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: own.url },
        body: new URLSearchParams({ token: TOKEN }).toString(),
      });
      const c = login.headers.get('set-cookie')!.split(';')[0]!;
      const sse = await openSse(`${own.url}/dashboard/live/events?account=${accountId}&mode=test`, { cookie: c });
      expect(sse.status).toBe(200);
      // Resolves only if the stream is closed by the server (a graceful stop waits for open responses).
      await own.stop();
      stopped = true;
      await expect(sse.until(() => false, 'the end', 10_000)).rejects.toThrow(/stream ended/);
    } finally {
      if (!stopped) await own.stop();
    }
  });
});
