// startServer: the core plus Bun's HTTP listener, bootstrap on an empty database, graceful stop.
import type { Config } from './config.types';
import { bootstrapIfEmpty } from './bootstrap';
import { createCore, type CoreOptions } from './compose';
import { MAX_BODY_BYTES } from './api/app';
import { errorResponse } from './api/errors';
import { AppError } from './domain/errors';
import { newId } from './domain/ids';
import { createStatelyInspector } from './actors/inspector';
import { createLogger } from './log';

export interface ServerHandle {
  url: string;
  port: number;
  bootstrapKey: string | null;
  /** The account bootstrap created (null when the database already had accounts). */
  bootstrapAccount: string | null;
  stop(): Promise<void>;
}

export async function startServer(config: Config, opts: { bootstrap: boolean } & CoreOptions): Promise<ServerHandle> {
  const log = opts.log ?? createLogger(config.logLevel);
  const inspect = opts.inspect ?? (config.inspect === false ? undefined : await createStatelyInspector(config.inspect, log));
  const core = createCore(config, { ...opts, inspect, log });
  const boot = opts.bootstrap ? bootstrapIfEmpty(core.db) : null;
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    // The app answers 413 request.too_large (with the envelope) for declared sizes over 1 MiB;
    // Bun's own, bare 413 only stops absurd bodies before they are buffered.
    maxRequestBodySize: MAX_BODY_BYTES * 16,
    fetch: async (req) => {
      // A chunked body declares no size: buffer it (Bun caps it above) and measure it here, so
      // the app's content-length check applies to every body.
      if (req.body && !req.headers.has('content-length')) {
        const body = await req.arrayBuffer();
        if (body.byteLength > MAX_BODY_BYTES) {
          return errorResponse(new AppError('request.too_large', `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`), newId('req', 20));
        }
        req = new Request(req.url, { method: req.method, headers: req.headers, body });
      }
      return core.app.handle(req);
    },
  });
  core.boot();
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}`;
  return {
    url,
    port: server.port!,
    bootstrapKey: boot?.testKey ?? null,
    bootstrapAccount: boot?.accountId ?? null,
    async stop() {
      await server.stop();
      await core.stop();
    },
  };
}
