// startServer: the core plus Bun's HTTP listener, bootstrap on an empty database, graceful stop.
import type { Config } from './config.types';
import { bootstrapIfEmpty } from './bootstrap';
import { createCore, type CoreOptions } from './compose';
import { errorResponse } from './web/envelope';
import { isAnsweredFromDurableWrite } from './web/durable-answer';
import { readCapped, tooLarge } from './web/body-limit';
import { AppError } from './domain/errors';
import { newId } from './domain/ids';
import { createStatelyInspector } from './actors/inspector';
import { createLogger } from './log';
import { setPublicUrl } from './domain/pay-url';
import { holdInstanceLease } from './actors/instance-lease';

export interface ServerHandle {
  url: string;
  port: number;
  bootstrapKey: string | null;
  /** The account bootstrap created (null when the database already had accounts). */
  bootstrapAccount: string | null;
  stop(): Promise<void>;
}

export interface ServerOptions extends CoreOptions {
  bootstrap: boolean;
  /** Another serve took this SQLite file over (this one had stopped renewing its lease). */
  onInstanceLeaseLost?: () => void;
}

export async function startServer(config: Config, opts: ServerOptions): Promise<ServerHandle> {
  const log = opts.log ?? createLogger(config.logLevel);
  const inspect = opts.inspect ?? (config.inspect === false ? undefined : await createStatelyInspector(config.inspect, log));
  const core = await createCore(config, { dispatcherThread: true, writerThread: config.sqlite.writerThread, ...opts, inspect, log });
  // Before anything listens, broadcasts or expires: a second serve on the same file stops here.
  try {
    const lease = holdInstanceLease(core.store, config, log, () => opts.onInstanceLeaseLost?.());
    // Released last, once nothing of this instance can write or send any more.
    if (lease) core.atClose(() => lease.release());
  } catch (e) {
    await core.stop();
    throw e;
  }
  const boot = opts.bootstrap ? await bootstrapIfEmpty(core.store) : null;
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    // The app answers 413 request.too_large with the envelope: for a declared size before
    // anything is read, for a chunked body as soon as the stream passes 1 MiB. Bun's own limit is
    // set out of reach so that its bare 413 never answers first.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    fetch: async (req) => {
      // Elysia finds the path by searching for "/" from index 11 of the URL, which assumes a host
      // of 4+ characters: with "Host: x", http://x/ab/v1/intents would route as /v1/intents.
      // Give such requests a placeholder host so the router sees the real path.
      const hostEnd = req.url.indexOf('/', req.url.indexOf('//') + 2);
      if (hostEnd !== -1 && hostEnd < 11) {
        req = new Request(`http://short-host.invalid${req.url.slice(hostEnd)}`, req);
      }
      // /v1 bodies are read (bounded) by the app after authentication. Other surfaces use
      // Elysia's parsers, so a chunked body there is measured here first.
      if (req.body && !req.headers.has('content-length') && !new URL(req.url).pathname.startsWith('/v1/')) {
        const body = await readCapped(req.body);
        if (body === null) return errorResponse(tooLarge(), newId('req', 20));
        req = new Request(req.url, { method: req.method, headers: req.headers, body: body as Uint8Array<ArrayBuffer> });
      }
      const res = await core.app.handle(req);
      // Group-committed writes are acknowledged only once their WAL sync returns; a response
      // that merely read one of them waits for that sync too (usually none is under way). A new
      // intent's answer is its own settled write and reads made before it: on disk already.
      const durable = isAnsweredFromDurableWrite(req) ? null : core.durable();
      if (durable !== null) {
        try {
          await durable;
        } catch (e) {
          // A failed sync: the store refuses every write since (AppError store.unavailable, 503 with
          // retry_after, src/store/disk-refusal.ts); what this answer read may not survive a power loss.
          const id = res.headers.get('x-request-id') ?? newId('req', 20);
          return errorResponse(e instanceof AppError ? e : new AppError('internal.error', 'The database could not make its last writes durable.'), id);
        }
      }
      return res;
    },
  });
  await core.boot();
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}`;
  // Pay links name the port actually bound (port 0 picks one) unless publicUrl is configured.
  if (config.publicUrl === null) setPublicUrl(url);
  return {
    url,
    port: server.port!,
    bootstrapKey: boot?.testKey ?? null,
    bootstrapAccount: boot?.accountId ?? null,
    async stop() {
      core.endStreams();
      await server.stop();
      await core.stop();
    },
  };
}

