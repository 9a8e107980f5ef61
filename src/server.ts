// startServer: the core plus Bun's HTTP listener, bootstrap on an empty database, graceful stop.
import type { Config } from './config.types';
import { bootstrapIfEmpty } from './bootstrap';
import { createCore, type CoreOptions } from './compose';
import { MAX_BODY_BYTES } from './api/app';
import { createStatelyInspector } from './actors/inspector';

export interface ServerHandle {
  url: string;
  port: number;
  bootstrapKey: string | null;
  stop(): Promise<void>;
}

export async function startServer(config: Config, opts: { bootstrap: boolean } & CoreOptions): Promise<ServerHandle> {
  const inspect = opts.inspect ?? (config.inspect ? await createStatelyInspector((m, f) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg: m, ...f })}\n`)) : undefined);
  const core = createCore(config, { ...opts, inspect });
  const boot = opts.bootstrap ? bootstrapIfEmpty(core.db) : null;
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    // The app answers 413 request.too_large (with the envelope) for declared sizes over 1 MiB;
    // Bun's own, bare 413 only stops absurd bodies before they are buffered.
    maxRequestBodySize: MAX_BODY_BYTES * 16,
    fetch: (req) => core.app.handle(req),
  });
  core.boot();
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}`;
  return {
    url,
    port: server.port!,
    bootstrapKey: boot?.testKey ?? null,
    async stop() {
      await server.stop();
      await core.stop();
    },
  };
}
