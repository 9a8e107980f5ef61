// `payforge serve [--bootstrap] [--inspect]`: run the HTTP server until SIGINT/SIGTERM.
// stdout carries one JSON line (url, and the bootstrap test key when one was created).
import { configFrom, parse, print } from './common';

export async function serve(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    bootstrap: { type: 'boolean' },
    inspect: { type: 'boolean' },
    port: { type: 'string' },
    host: { type: 'string' },
  });
  const config = configFrom(values, {
    port: values.port as string | undefined,
    host: values.host as string | undefined,
    inspect: values.inspect === true ? true : undefined,
  });
  // Loaded lazily: the other commands should not pay for Elysia and the actor runtime.
  const { startServer } = await import('../server');
  const server = await startServer(config, { bootstrap: values.bootstrap === true });
  print(server.bootstrapKey ? { url: server.url, testKey: server.bootstrapKey } : { url: server.url });
  process.stderr.write(`payforge: listening on ${server.url} (db ${config.db})\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`payforge: ${signal}, stopping\n`);
    server.stop().then(
      () => process.exit(0),
      (e) => {
        process.stderr.write(`payforge: stop failed: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
