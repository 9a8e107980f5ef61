// serve --inspect: a local WebSocket receiver gets a real server's transitions (works offline);
// the Sky inspector offline is one warning line, never a repeated one, and stdout stays JSON.
import { describe, expect, it } from 'vitest';
import { startServe } from '../support/cli';
import { freshTestDatabase } from '../support/test-store';

/** A fresh database of the store under test (PAYFORGE_TEST_STORE) for --db. */
const freshDb = async () => (await freshTestDatabase()).db;

describe('serve --inspect ws://host:port', () => {
  it('streams the lifecycle actors of a real server to a local WebSocket receiver', async () => {
    const messages: Array<{ type: string; event?: { type?: string }; snapshot?: { value?: unknown }; definition?: string }> = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (req, server) => (server.upgrade(req) ? undefined : new Response('ws only', { status: 400 })),
      websocket: { message: (_ws, data) => void messages.push(JSON.parse(String(data))) },
    });
    const serve = await startServe(['serve', '--bootstrap', '--port', '0', '--db', await freshDb(), '--inspect', `ws://127.0.0.1:${receiver.port}`]);
    try {
      const auth = { authorization: `Bearer ${serve.testKey}`, 'content-type': 'application/json' };
      const created = await fetch(`${serve.url}/v1/intents`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ chain: 'eip155:84532', token: 'USDC', amount: '2', requestor: '0x1111111111111111111111111111111111111111' }),
      });
      expect(created.status).toBe(201);
      const id = (await created.json()).intent.id;
      expect((await fetch(`${serve.url}/v1/intents/${id}/cancel`, { method: 'POST', headers: auth })).status).toBe(200);
      await expect.poll(() => messages.some((m) => m.type === '@xstate.event' && m.event?.type === 'CANCEL'), { timeout: 30_000 }).toBe(true);
      // The actor announces the machine definition the inspector draws. Each inspection event is its
      // own WebSocket message: the ones after the CANCEL may still be on their way.
      await expect.poll(() => messages.some((m) => m.type === '@xstate.actor' && String(m.definition).includes('"id":"intent"')), { timeout: 10_000 }).toBe(true);
      await expect.poll(() => messages.some((m) => m.type === '@xstate.snapshot' && m.snapshot?.value === 'cancelled'), { timeout: 10_000 }).toBe(true);
      await expect.poll(() => serve.stderr()).toContain('stately inspector connected');
    } finally {
      expect(await serve.stop()).toBe(0);
      await receiver.stop(true);
    }
  });
});

describe('serve --inspect without internet', () => {
  it('logs one warning, keeps stdout JSON, and does not repeat it on retries', async () => {
    const serve = await startServe(['serve', '--port', '0', '--db', await freshDb(), '--inspect']);
    try {
      const warning = /stately inspector unreachable/g;
      await expect.poll(() => (serve.stderr().match(warning) ?? []).length, { timeout: 30_000 }).toBe(1);
      // PartySocket retries within 1-5 s; the old code warned on each retry.
      await new Promise((r) => setTimeout(r, 6_000));
      expect((serve.stderr().match(warning) ?? []).length).toBe(1);
      for (const line of serve.stderr().split('\n').filter((l) => l.startsWith('{'))) expect(() => JSON.parse(line)).not.toThrow();
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });
});
