// The CLI dispatcher: maps `<command> [<sub>]` to one file each, and turns failures into
// stderr text and an exit code (2 usage, 1 everything else). stdout only ever holds JSON.
import { ConfigError } from '../config';
import { isAppError } from '../domain/errors';
import { UsageError } from './common';

export const USAGE = `usage: payforge <command> [options]

commands:
  serve [--bootstrap] [--inspect [ws://host:port]] [--port N] [--host H]
  accounts create --name NAME [--plan free|pro]
  accounts list [--json]
  accounts set-plan [--account acct_...] --plan free|pro
  keys create [--account acct_...] --mode test|live
  keys list [--account acct_...] [--json]
  keys revoke <key-or-key-id>
  webhooks set-endpoint [--account acct_...] --mode test|live --url URL
  webhooks rotate-secret [--account acct_...] --mode test|live
  webhooks replay [--account acct_...] --mode test|live --since TIME|15m
  listen [--account acct_...] [--forward-to URL] [--port N] [--since TIME|15m]
  machine --json
  migrate
  health [--port N] [--host H]

--account may be left out when the database has exactly one account;
every command takes --db PATH and --config FILE (JSON or TOML) and prints JSON on stdout;
environment: PAYFORGE_CONFIG, PAYFORGE_PORT, PAYFORGE_HOST, PAYFORGE_DB, PAYFORGE_ADMIN_TOKEN, PAYFORGE_LOG_LEVEL
`;

type Command = (argv: string[]) => Promise<void>;

// Lazy imports keep short commands fast; literal paths so `bun build --compile` bundles them.
const COMMANDS = new Map<string, () => Promise<Command>>(Object.entries({
  serve: async () => (await import('./serve')).serve,
  'accounts create': async () => (await import('./accounts-create')).accountsCreate,
  'accounts list': async () => (await import('./accounts-list')).accountsList,
  'accounts set-plan': async () => (await import('./accounts-set-plan')).accountsSetPlan,
  'keys create': async () => (await import('./keys-create')).keysCreate,
  'keys list': async () => (await import('./keys-list')).keysList,
  'keys revoke': async () => (await import('./keys-revoke')).keysRevoke,
  'webhooks set-endpoint': async () => (await import('./webhooks-set-endpoint')).webhooksSetEndpoint,
  'webhooks rotate-secret': async () => (await import('./webhooks-rotate-secret')).webhooksRotateSecret,
  'webhooks replay': async () => (await import('./webhooks-replay')).webhooksReplay,
  listen: async () => (await import('./listen')).listen,
  machine: async () => (await import('./machine')).machine,
  migrate: async () => (await import('./migrate')).migrate,
  health: async () => (await import('./health')).health,
}));

/** Runs one command line; resolves to the exit code (serve resolves once listening). */
export async function run(argv: string[]): Promise<number> {
  try {
    if (argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
      process.stdout.write(USAGE);
      return 0;
    }
    const two = `${argv[0]} ${argv[1]}`;
    // A Map, not an object: `payforge constructor` must be an unknown command, not Object's.
    const [name, rest] = COMMANDS.has(two) ? [two, argv.slice(2)] : [argv[0] ?? '', argv.slice(1)];
    const load = COMMANDS.get(name);
    if (!load) throw new UsageError(argv.length ? `Unknown command '${argv.slice(0, 2).join(' ')}'` : 'Missing command');
    await (await load())(rest);
    return 0;
  } catch (e) {
    return report(e);
  }
}

function report(e: unknown): number {
  if (e instanceof UsageError) {
    process.stderr.write(`payforge: ${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (e instanceof ConfigError) {
    process.stderr.write(`payforge: ${e.message}\n`);
    return 1;
  }
  if (isAppError(e)) {
    // Same envelope as the HTTP API, so scripts can switch on the code.
    process.stderr.write(`${JSON.stringify({ error: { code: e.code, message: e.message, param: e.param, details: e.details } })}\n`);
    return 1;
  }
  process.stderr.write(`payforge: ${e instanceof Error ? e.message : String(e)}\n`);
  return 1;
}
