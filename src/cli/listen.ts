// `payforge listen [--account] [--forward-to URL] [--port N] [--since T]`: see webhooks locally, as
// `stripe listen` does. Points the account's TEST endpoint at a receiver on 127.0.0.1, verifies
// each delivery's X-PF-Signature, prints one JSON line per event on stdout, and forwards the exact
// bytes and signing headers to --forward-to (so the app there verifies them with the same secret).
// Ctrl-C puts the endpoint back as it was (or removes the one listen created).
import { timingSafeEqual } from 'node:crypto';
import { webhookServices } from '../webhooks/services';
import { setEndpoint } from '../webhooks/set-endpoint';
import { pfSignature } from '../webhooks/sign';
import { accountOf, configFrom, openCliStore, parse, print, UsageError } from './common';
import { parseSince } from './since';

/** Headers a receiver needs to verify the delivery: passed through unchanged. */
const FORWARDED = ['content-type', 'x-pf-signature', 'x-pf-event-id', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

const sameSignature = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

export async function listen(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    account: { type: 'string' },
    'forward-to': { type: 'string' },
    port: { type: 'string' },
    since: { type: 'string' },
  });
  const forwardTo = values['forward-to'] as string | undefined;
  if (forwardTo !== undefined && !URL.canParse(forwardTo)) throw new UsageError('--forward-to must be an absolute URL');
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be an integer from 0 to 65535');
  const since = values.since === undefined ? null : parseSince(values.since as string);
  const config = configFrom(values);
  const store = await openCliStore(config);
  const { repos } = store;
  const accountId = await accountOf(repos, values);
  const previous = await repos.endpoints.get(accountId, 'test');
  let secret = '';

  const server = Bun.serve({
    port,
    hostname: '127.0.0.1',
    async fetch(req) {
      if (req.method !== 'POST') return new Response('payforge listen: POST deliveries only\n', { status: 405, headers: { allow: 'POST' } });
      const body = await req.text();
      const given = req.headers.get('x-pf-signature') ?? '';
      if (!sameSignature(given, pfSignature(secret, body))) {
        process.stderr.write('payforge listen: refused a request whose X-PF-Signature does not verify\n');
        return new Response('signature does not verify\n', { status: 400 });
      }
      let event: { eventId?: string; type?: string; createdAt?: string; data?: { intent?: { id?: string }; payment?: { id?: string } } };
      try {
        event = JSON.parse(body);
      } catch {
        return new Response('body is not JSON\n', { status: 400 });
      }
      let status = 200;
      let forwarded: number | string | null = null;
      if (forwardTo !== undefined) {
        const headers = new Headers();
        for (const h of FORWARDED) {
          const v = req.headers.get(h);
          if (v !== null) headers.set(h, v);
        }
        try {
          const res = await fetch(forwardTo, { method: 'POST', headers, body, signal: AbortSignal.timeout(config.webhooks.timeoutMs) });
          await res.body?.cancel().catch(() => {});
          forwarded = status = res.status;
        } catch (e) {
          // The sender retries a non-2xx on its schedule, exactly as for a real endpoint.
          forwarded = `failed: ${(e as Error).name}`;
          status = 502;
        }
      }
      print({
        eventId: event.eventId ?? null,
        type: event.type ?? null,
        intentId: event.data?.intent?.id ?? null,
        paymentId: event.data?.payment?.id ?? null,
        createdAt: event.createdAt ?? null,
        verified: true,
        forwarded,
      });
      return new Response(null, { status: status >= 200 && status < 300 ? 200 : status });
    },
  });
  const url = `http://127.0.0.1:${server.port}/`;
  try {
    secret = (await setEndpoint(webhookServices(repos, config), { accountId, mode: 'test' }, { url })).secret;
  } catch (e) {
    await server.stop(true);
    await store.close();
    throw e;
  }
  const replayed = since === null ? 0 : await repos.deliveries.queueReplay({ accountId, mode: 'test', since, url, now: Date.now() });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await repos.endpoints.restore(accountId, 'test', previous?.url ?? null, Date.now());
    await server.stop(true);
    await store.close();
    process.stderr.write(previous ? `payforge listen: test endpoint restored to ${previous.url}\n` : 'payforge listen: test endpoint removed\n');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());

  print({ listening: url, account: accountId, mode: 'test', secret, forwardTo: forwardTo ?? null, replayed });
  process.stderr.write(
    `payforge listen: test-mode events of ${accountId} now come to ${url}` +
      `${forwardTo ? ` and are forwarded to ${forwardTo}` : ''} (signing secret ${secret}).\n` +
      'payforge listen: a running `payforge serve` on this database sends them within its poll interval. Press Ctrl-C to stop.\n',
  );
}
