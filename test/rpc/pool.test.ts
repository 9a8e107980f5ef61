// The RPC pool against real local HTTP upstreams: answers, error passthrough, failover,
// circuit breaker, the all-down refusal and batches.
import { afterAll, describe, expect, it } from 'vitest';
import { createRpcPool, redactUrl } from '../../src/rpc/pool';
import { RpcCallError } from '../../src/rpc/types';
import { answering, deadUrl, slow, status, stopAll, upstream } from './servers';
import { refusal } from '../support/errors';

afterAll(stopAll);

// Cooldowns run on a clock the tests move (no sleeps); the timeout is generous except where a
// slow upstream is the subject, so a loaded machine cannot turn a live upstream into a failure.
let clock = 1_000_000;
const tick = (ms: number) => {
  clock += ms;
};
const base = { chain: 'eip155:84532', timeoutMs: 5_000, breakerFailures: 2, breakerCooldownMs: 200, retryAfterSeconds: 7 };
const pool = (urls: string[], over: Partial<typeof base> = {}) => createRpcPool({ ...base, ...over, urls, now: () => clock });


describe('createRpcPool', () => {
  it('returns the result of a call and the raw body of a request', async () => {
    const up = answering('0x2a');
    const p = pool([up.url]);
    expect(await p.call('eth_blockNumber')).toBe('0x2a');
    expect(await p.request({ jsonrpc: '2.0', id: 9, method: 'eth_chainId', params: [] })).toEqual({
      jsonrpc: '2.0',
      id: 9,
      result: '0x2a',
    });
    expect(p.chain).toBe('eip155:84532');
  });

  it('passes JSON-RPC errors through without failing over', async () => {
    const first = answering();
    const second = answering();
    const p = pool([first.url, second.url]);
    const e = await p.call('fail').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(RpcCallError);
    expect(e).toMatchObject({ code: -32601, message: 'Method not found' });
    const raw = await p.request({ jsonrpc: '2.0', id: 1, method: 'fail' });
    expect(raw).toMatchObject({ error: { code: -32601 } });
    expect(second.hits()).toBe(0);
    expect(p.status()[0]).toMatchObject({ state: 'closed', failures: 0 });
  });

  it('treats a 4xx with a JSON-RPC body as an answer', async () => {
    const up = upstream(() => Response.json({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'bad' } }, { status: 400 }));
    const spare = answering();
    await expect(pool([up.url, spare.url]).call('x')).rejects.toMatchObject({ code: -32600 });
    expect(spare.hits()).toBe(0);
  });

  it('fails over from a dead port, a 500, a 429, garbage and a slow upstream to a live one', async () => {
    const live = answering('0xok');
    // Slower than the test's own timeout: the call can only pass if the pool cut it off.
    const slowOne = slow(120_000);
    const urls = [await deadUrl(), status(500).url, status(429).url, upstream(() => new Response('<html>')).url, slowOne.url, live.url];
    const p = pool(urls, { breakerFailures: 5, timeoutMs: 1_000 });
    expect(await p.call('eth_blockNumber')).toBe('0xok');
    expect(slowOne.hits()).toBe(1);
    expect(live.hits()).toBe(1);
    expect(p.status().map((s) => s.failures)).toEqual([1, 1, 1, 1, 1, 0]);
  });

  it('opens the breaker after consecutive failures, skips the upstream, then probes once half-open', async () => {
    let healthy = false;
    const flaky = upstream((body) =>
      healthy ? Response.json({ jsonrpc: '2.0', id: (body as { id: number }).id, result: 'flaky' }) : new Response('', { status: 503 }),
    );
    const live = answering('live');
    const p = pool([flaky.url, live.url]);

    expect(await p.call('a')).toBe('live');
    expect(await p.call('a')).toBe('live');
    expect(p.status()[0]).toMatchObject({ state: 'open', failures: 2 });
    expect(flaky.hits()).toBe(2);

    expect(await p.call('a')).toBe('live');
    expect(flaky.hits()).toBe(2); // skipped while open

    tick(250);
    expect(p.status()[0]?.state).toBe('half_open');
    healthy = true;
    expect(await p.call('a')).toBe('flaky'); // the probe answers and closes the breaker
    expect(p.status()[0]).toMatchObject({ state: 'closed', failures: 0 });
  });

  it('re-opens after a failed half-open probe', async () => {
    const bad = status(502);
    const live = answering('live');
    const p = pool([bad.url, live.url], { breakerFailures: 1 });
    await p.call('a');
    expect(p.status()[0]?.state).toBe('open');
    tick(250);
    expect(p.status()[0]?.state).toBe('half_open');
    expect(await p.call('a')).toBe('live');
    expect(bad.hits()).toBe(2);
    expect(p.status()[0]).toMatchObject({ state: 'open', failures: 2 });
  });

  it('still tries the least-recently-failed upstream when every breaker is open', async () => {
    let healthy = false;
    const a = upstream((body) =>
      healthy ? Response.json({ jsonrpc: '2.0', id: (body as { id: number }).id, result: 'back' }) : new Response('', { status: 500 }),
    );
    const b = status(500);
    const p = pool([a.url, b.url], { breakerFailures: 1, breakerCooldownMs: 60_000 });
    await refusal(p.call('a'));
    expect(p.status().map((s) => s.state)).toEqual(['open', 'open']);
    healthy = true;
    expect(await p.call('a')).toBe('back'); // a failed first, so it is tried
    expect(a.hits()).toBe(2);
    expect(b.hits()).toBe(1);
  });

  it('refuses with rpc.unavailable, retry_after and chain, and no URL, when nothing answers', async () => {
    const secret = `${(await deadUrl()).replace(/\/$/, '')}/v2/SECRET-KEY?api-key=SECRET2`;
    const p = pool([secret, status(500).url, slow(120_000).url], { timeoutMs: 1_000 });
    const e = await refusal(p.call('eth_blockNumber'));
    expect(e.code).toBe('rpc.unavailable');
    expect(e.details).toEqual({ retry_after: 7, chain: 'eip155:84532' });
    const everything = JSON.stringify({ m: e.message, d: e.details, c: String((e.cause as Error).message), s: p.status() });
    expect(everything).not.toContain('SECRET');
    expect((e.cause as AggregateError).errors).toHaveLength(3);
    expect((e.cause as Error).message).toContain('timed out');
    expect((e.cause as Error).message).toContain('HTTP 500');
  });

  it('pinEach: one pinned view per upstream whose breaker is not open, in order; each answers only from its own', async () => {
    const a = status(500);
    const b = answering('from b');
    const c = answering('from c');
    const p = pool([a.url, b.url, c.url], { breakerFailures: 1, breakerCooldownMs: 60_000 });
    expect(p.pinEach!().map((v) => v.pinnedTo)).toEqual([p.status()[0]!.url, p.status()[1]!.url, p.status()[2]!.url]);
    await refusal(p.pinEach!()[0]!.call('x')); // a pinned view never fails over
    expect(b.hits()).toBe(0);
    const views = p.pinEach!();
    expect(views.map((v) => v.pinnedTo)).toEqual([p.status()[1]!.url, p.status()[2]!.url]); // a's breaker is open
    expect(await views[1]!.call('x')).toBe('from c');
    expect(views[0]!.pinEach!()).toEqual([views[0]]);
  });

  it('sends batches as one request and returns the array', async () => {
    const dead = await deadUrl();
    const up = answering('0x1');
    const p = pool([dead, up.url]);
    const out = await p.request([
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 2, method: 'fail' },
    ]);
    expect(out).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x1' },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
    ]);
    expect(up.hits()).toBe(1);
  });

  it('redacts paths and queries from upstream labels', () => {
    expect(redactUrl('https://user:pw@rpc.example.com/v2/KEY?x=1')).toBe('https://rpc.example.com/…');
    expect(redactUrl('http://127.0.0.1:8545/')).toBe('http://127.0.0.1:8545');
    expect(() => createRpcPool({ ...base, urls: [] })).toThrow();
  });
});
