// Helpers shared by the API tests: error assertions, events of an intent, polling, dead ports.
import { createServer } from 'node:net';
import { expect } from 'vitest';
import type { ApiClient, ApiResponse } from './server';

/** Assert the error envelope of contract section 10 and return its error object. */
export function expectError(r: ApiResponse, status: number, code: string, param?: string | null): { code: string; message: string; param: string | null; details: Record<string, unknown> } {
  expect({ status: r.status, code: r.body?.error?.code, ...(param !== undefined ? { param: r.body?.error?.param } : {}) }, JSON.stringify(r.body)).toEqual({
    status,
    code,
    ...(param !== undefined ? { param } : {}),
  });
  expect(Object.keys(r.body).sort()).toEqual(['error']);
  expect(Object.keys(r.body.error).sort()).toEqual(['code', 'details', 'message', 'param']);
  expect(typeof r.body.error.message).toBe('string');
  expect(r.body.error.details).toBeTypeOf('object');
  expect(r.headers.get('x-request-id')).toBeTruthy();
  expect(JSON.stringify(r.body)).not.toMatch(/\n\s+at |\.ts:\d+|node_modules/);
  return r.body.error;
}

export async function eventsOf(api: ApiClient, intentId: string): Promise<Array<{ type: string; eventId: string; data: { intent: any } }>> {
  const r = await api.get('/v1/events?limit=100');
  expect(r.status).toBe(200);
  return (r.body.events as any[]).filter((e) => e.data.intent?.id === intentId).reverse();
}

export async function eventTypes(api: ApiClient, intentId: string): Promise<string[]> {
  return (await eventsOf(api, intentId)).map((e) => e.type);
}

/** Poll until `check` returns a truthy value or the deadline passes. */
export async function waitFor<T>(check: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A loopback port with nothing listening (connection refused at once). */
export async function deadPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** For `waitFor`: the intent when it is in state `want`, else undefined (polled through the API). */
export function intentIn(api: ApiClient, id: string, want: string): () => Promise<any> {
  return async () => {
    const i = (await api.get(`/v1/intents/${id}`)).body.intent;
    return i.state === want ? i : undefined;
  };
}
