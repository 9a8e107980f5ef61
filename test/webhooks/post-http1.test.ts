// The dispatcher's HTTP/1.1 client (src/webhooks/post-http1.ts) against real loopback TCP servers
// that answer byte for byte what each case needs: keep-alive reuse, the body framings (length,
// chunked, up to close), interim 1xx, Connection: close, a bounded read of an endless body, a
// keep-alive socket the server closed while idle (sent again on a new one), timeouts, refused
// connections, header injection, and close() failing what is under way.
import type { Socket, TCPSocketListener } from 'bun';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttp1Client, PostError, type Http1Client } from '../../src/webhooks/post-http1';

interface Seen {
  /** One entry per connection: the raw requests it carried. */
  connections: string[][];
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function client(): Http1Client {
  const c = createHttp1Client();
  cleanups.push(() => c.close());
  return c;
}

/**
 * A TCP server that calls `answer` once per whole request (head + Content-Length body) and writes
 * what it returns; `answer` may also end or hold the socket.
 */
function server(answer: (req: string, s: Socket<{ conn: number; buf: string }>, n: number) => string | null): { url: string; seen: Seen } {
  const seen: Seen = { connections: [] };
  let served = 0;
  const l: TCPSocketListener<{ conn: number; buf: string }> = Bun.listen({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(s) {
        s.data = { conn: seen.connections.length, buf: '' };
        seen.connections.push([]);
      },
      data(s, chunk) {
        s.data.buf += chunk.toString('latin1');
        for (;;) {
          const end = s.data.buf.indexOf('\r\n\r\n');
          if (end < 0) return;
          const len = Number(/content-length: *(\d+)/i.exec(s.data.buf.slice(0, end))?.[1] ?? 0);
          if (s.data.buf.length < end + 4 + len) return;
          const req = s.data.buf.slice(0, end + 4 + len);
          s.data.buf = s.data.buf.slice(end + 4 + len);
          seen.connections[s.data.conn]!.push(req);
          const out = answer(req, s, served++);
          if (out !== null) s.write(out);
        }
      },
    },
  });
  cleanups.push(() => l.stop(true));
  return { url: `http://127.0.0.1:${l.port}/hooks?x=1`, seen };
}

const ok = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
const post = (c: Http1Client, url: string, body = '{"a":1}', timeoutMs = 2000) => c.post(url, undefined, { 'Content-Type': 'application/json', 'X-PF-Event-Id': 'evt_1' }, body, timeoutMs);

describe('postHttp1', () => {
  it('sends the request line, Host, the headers and the exact body; reuses the socket for the next POST', async () => {
    const rx = server(() => ok);
    const c = client();
    const body = '{"note":"é ✓"}';
    expect(await post(c, rx.url, body)).toEqual({ status: 200, location: null, text: 'ok' });
    expect(await post(c, rx.url)).toMatchObject({ status: 200 });
    expect(rx.seen.connections).toHaveLength(1);
    const [first] = rx.seen.connections[0]!;
    const port = new URL(rx.url).port;
    // The server reads bytes as latin1: the body went out as UTF-8, its length in bytes.
    const sent = `POST /hooks?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nX-PF-Event-Id: evt_1\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    expect(first).toBe(Buffer.from(sent, 'utf8').toString('latin1'));
  });

  it('uses the Host it is given (a checked address in the URL, the name in Host)', async () => {
    const rx = server(() => ok);
    await client().post(rx.url, 'hooks.example.test:443', {}, '{}', 2000);
    expect(rx.seen.connections[0]![0]).toContain('\r\nHost: hooks.example.test:443\r\n');
  });

  it('reads chunked bodies, skips interim 1xx responses, keeps the socket after both', async () => {
    const rx = server((_req, _s, n) =>
      n === 0
        ? 'HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nboom \r\n6\r\nagain!\r\n0\r\nX-Trailer: y\r\n\r\n'
        : 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n',
    );
    const c = client();
    expect(await post(c, rx.url)).toEqual({ status: 500, location: null, text: 'boom again!' });
    expect(await post(c, rx.url)).toEqual({ status: 204, location: null, text: '' });
    expect(rx.seen.connections).toHaveLength(1);
  });

  it('reports a redirect with its Location and never follows it', async () => {
    const rx = server(() => 'HTTP/1.1 302 Found\r\nLocation: http://elsewhere.example/\r\nContent-Length: 0\r\n\r\n');
    expect(await post(client(), rx.url)).toEqual({ status: 302, location: 'http://elsewhere.example/', text: '' });
    expect(rx.seen.connections.flat()).toHaveLength(1);
  });

  it('a body up to the socket end (no length) and Connection: close: read whole, socket not reused', async () => {
    const rx = server((_req, s, n) => {
      if (n === 0) {
        s.write('HTTP/1.1 503 Busy\r\n\r\nplease ');
        s.end('retry');
        return null;
      }
      return 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok';
    });
    const c = client();
    expect(await post(c, rx.url)).toEqual({ status: 503, location: null, text: 'please retry' });
    expect(await post(c, rx.url)).toMatchObject({ status: 200 });
    expect(await post(c, rx.url)).toMatchObject({ status: 200 });
    expect(rx.seen.connections).toHaveLength(3);
  });

  it('stops reading an endless body at 64 KiB, keeps the first 4 KiB, and drops that socket', async () => {
    const rx = server((_req, s, n) => {
      if (n > 0) return ok;
      s.write('HTTP/1.1 500 Err\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = `4000\r\n${'x'.repeat(0x4000)}\r\n`;
      for (let i = 0; i < 8; i++) s.write(chunk);
      return null;
    });
    const c = client();
    const a = await post(c, rx.url);
    expect(a.status).toBe(500);
    expect(a.text).toBe('x'.repeat(4096));
    expect(await post(c, rx.url)).toMatchObject({ status: 200 });
    expect(rx.seen.connections).toHaveLength(2);
  });

  it('an answer before the whole request went out (an early 413): the socket is not reused', async () => {
    let connections = 0;
    let answered = false;
    const l = Bun.listen<undefined>({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        open() {
          connections++;
        },
        data(s, chunk) {
          // The first connection answers at its first bytes and reads no more; later ones answer each request head.
          if (connections === 1 && !answered) {
            answered = true;
            s.write('HTTP/1.1 413 Too Large\r\nContent-Length: 3\r\n\r\nbig');
          } else if (connections > 1 && chunk.toString('latin1').includes('\r\n\r\n')) s.write(ok);
        },
      },
    });
    cleanups.push(() => l.stop(true));
    const url = `http://127.0.0.1:${l.port}/`;
    const c = client();
    expect(await post(c, url, JSON.stringify({ pad: 'x'.repeat(8 << 20) }))).toEqual({ status: 413, location: null, text: 'big' });
    expect(await post(c, url)).toMatchObject({ status: 200 });
    expect(connections).toBe(2);
  });

  it('a keep-alive socket the server closed while idle: the POST goes out again on a new socket', async () => {
    const rx = server((_req, s) => {
      s.write(ok);
      // Closed right after answering, as a server whose keep-alive timeout ran out would.
      setTimeout(() => s.end(), 10);
      return null;
    });
    const c = client();
    expect(await post(c, rx.url)).toMatchObject({ status: 200 });
    await Bun.sleep(50);
    expect(await post(c, rx.url)).toMatchObject({ status: 200 });
    expect(rx.seen.connections.map((x) => x.length)).toEqual([1, 1]);
  });

  it('a POST sent again on a new socket (its reused one closed unanswered) still times out', async () => {
    // First request: answered, the socket kept. Second, on that reused socket: closed unanswered
    // (as a server whose keep-alive timeout ran out as it arrived), so it goes out again on a new
    // socket, where nobody answers. Its own time limit must still end it.
    const rx = server((_req, s, n) => {
      if (n === 0) return ok;
      if (n === 1) s.end();
      return null;
    });
    const c = client();
    expect(await post(c, rx.url)).toMatchObject({ status: 200 });
    const err = await post(c, rx.url, '{}', 200).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PostError);
    expect((err as PostError).timedOut).toBe(true);
    expect(rx.seen.connections.map((x) => x.length)).toEqual([2, 1]);
  });

  it('a socket closed after the request went out on a fresh connection fails (no second send)', async () => {
    const rx = server((_req, s) => (s.end(), null));
    const err = await post(client(), rx.url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PostError);
    expect((err as PostError).timedOut).toBe(false);
    expect(rx.seen.connections.flat()).toHaveLength(1);
  });

  it('times out a receiver that never answers (timedOut), and closes that socket', async () => {
    const rx = server(() => null);
    const c = client();
    const err = await post(c, rx.url, '{}', 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PostError);
    expect((err as PostError).timedOut).toBe(true);
    expect((err as PostError).message).toBe('timeout after 100 ms');
  });

  it('fails a refused connection', async () => {
    const l = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    const port = l.port;
    l.stop(true);
    const err = await post(client(), `http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PostError);
    expect((err as PostError).timedOut).toBe(false);
  });

  it('refuses a header name or value with a line break (nothing is sent)', async () => {
    const rx = server(() => ok);
    const c = client();
    await expect(c.post(rx.url, undefined, { 'X-A': 'v\r\nX-Injected: 1' }, '{}', 1000)).rejects.toThrow(/printable ASCII/);
    await expect(c.post(rx.url, undefined, { 'X-A\nB': 'v' }, '{}', 1000)).rejects.toThrow(/printable ASCII/);
    await expect(c.post(rx.url, 'evil\r\nX: 1', {}, '{}', 1000)).rejects.toThrow(/printable ASCII/);
    expect(rx.seen.connections.flat()).toHaveLength(0);
  });

  it('close() fails the POSTs under way and any later one', async () => {
    const rx = server(() => null);
    const c = createHttp1Client();
    const pending = post(c, rx.url, '{}', 10_000).catch((e: unknown) => e);
    await new Promise<void>((r) => {
      const check = () => (rx.seen.connections.flat().length > 0 ? r() : setTimeout(check, 5));
      check();
    });
    c.close();
    const err = await pending;
    expect(err).toBeInstanceOf(PostError);
    expect((err as PostError).timedOut).toBe(false);
    await expect(post(c, rx.url)).rejects.toThrow(/closed/);
  });

  it('refuses a URL that is not http:', async () => {
    await expect(client().post('https://127.0.0.1:1/', undefined, {}, '{}', 1000)).rejects.toThrow(/not an http URL/);
  });
});
