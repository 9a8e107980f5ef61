// `payforge serve [--bootstrap] [--inspect [ws://host:port]]`: run the HTTP server until SIGINT/SIGTERM.
// stdout carries one JSON line (url, and the bootstrap account and test key when they were created).
import { createLogger } from '../log';
import { configFrom, parse, print } from './common';
import { describeDb } from '../store/pg/connect';

/** Bind addresses that mean "every interface" (what the Docker image sets), never one to browse to. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0']);

export async function serve(argv: string[]): Promise<void> {
  const { argv: rest, inspect } = takeInspect(argv);
  const { values } = parse(rest, {
    bootstrap: { type: 'boolean' },
    port: { type: 'string' },
    host: { type: 'string' },
  });
  const config = configFrom(values, {
    port: values.port as string | undefined,
    host: values.host as string | undefined,
    inspect,
  });
  // Every stderr line of a running server is a JSON log line (log.ts), these included.
  const log = createLogger(config.logLevel);
  // Loaded lazily: the other commands should not pay for Elysia and the actor runtime.
  const { startServer } = await import('../server');
  let stop = (_signal: string, _code?: number) => {};
  const server = await startServer(config, {
    bootstrap: values.bootstrap === true,
    log,
    // Another serve took this file over: this one must not write beside it.
    onInstanceLeaseLost: () => stop('instance lease lost', 1),
  });
  // Handlers before the URL is printed: a supervisor that stops us as soon as we answer must
  // get a clean stop, not the default SIGTERM death (exit 143).
  let stopping = false;
  stop = (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    log('info', 'stopping', { signal });
    // Also the code of a natural exit, should the loop run dry before stop() settles.
    process.exitCode = code;
    server.stop().then(
      () => process.exit(code),
      (e) => {
        log('error', 'stop failed', { error: (e as Error).message });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  print(server.bootstrapKey ? { url: server.url, account: server.bootstrapAccount, testKey: server.bootstrapKey } : { url: server.url });
  log('info', 'listening', { url: server.url, db: describeDb(config.db) });
  if (config.publicUrl === null && WILDCARD_HOSTS.has(config.host)) {
    // Pay links default to the listener's address; a wildcard one is no address a payer can open.
    log('warn', 'pay links name a wildcard address no payer can open; set publicUrl to where payers reach this server', {
      payUrl: `${server.url}/pay/…`,
      hint: 'PAYFORGE_PUBLIC_URL=https://pay.example.com (or http://localhost:8080 to try it on this machine)',
    });
  }
  if (values.bootstrap === true && !server.bootstrapKey) {
    // A second start must not leave a newcomer wondering where the first key went.
    log('warn', 'the database already has accounts, so bootstrap created nothing; keys are shown only once, at creation', {
      hint: '`payforge accounts list` and `payforge keys list` show what exists; `payforge keys create --mode test` makes a new key',
    });
  }
}

/**
 * `--inspect` takes an optional value (`--inspect`, `--inspect ws://h:p`, `--inspect=ws://h:p`),
 * which node:util's parseArgs cannot express: lift it out before the strict parse.
 */
function takeInspect(argv: string[]): { argv: string[]; inspect: boolean | string | undefined } {
  const rest: string[] = [];
  let inspect: boolean | string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--inspect') {
      const next = argv[i + 1];
      if (next !== undefined && /^wss?:\/\//.test(next)) {
        inspect = next;
        i++;
      } else inspect = true;
    } else if (a.startsWith('--inspect=')) inspect = a.slice('--inspect='.length);
    else rest.push(a);
  }
  return { argv: rest, inspect };
}
