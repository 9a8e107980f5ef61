// The CLI dispatcher: maps `<command> [<sub>]` to one file each, and turns failures into
// stderr text and an exit code (2 usage, 1 everything else). stdout only ever holds JSON, except
// the help text that was asked for (`help`, `--help`).
import { ConfigError } from '../config';
import { isAppError } from '../domain/errors';
import { UsageError } from './common';

/** Each command's synopsis and what it does: the help text is made from this one table. */
const HELP: ReadonlyArray<readonly [synopsis: string, about: string]> = [
  ['serve [--bootstrap] [--inspect [ws://host:port]] [--port N] [--host H]', 'run the API, the dashboard and the pay pages; --bootstrap creates an account and a test key on an empty database and prints them; --inspect sends every lifecycle to the Stately inspector (Sky, or a local ws:// receiver)'],
  ['accounts create --name NAME [--plan free|pro]', 'create an account; prints its id'],
  ['accounts list [--json]', 'every account (id, name, plan, created), oldest first'],
  ['accounts set-plan [--account acct_...] --plan free|pro', "change an account's plan; a running server applies it on the next request"],
  ['keys create [--account acct_...] --mode test|live', 'make an API key; printed once, stored only as a hash'],
  ['keys list [--account acct_...] [--json]', "an account's keys (prefix, mode, created, last used, revoked), never the secret"],
  ['keys revoke <key-or-key-id>', 'revoke a key; it answers 401 at once'],
  ['webhooks set-endpoint [--account acct_...] --mode test|live --url URL', 'set where the events of one mode are delivered; prints the signing secret'],
  ['webhooks rotate-secret [--account acct_...] --mode test|live', 'a new signing secret; the old one keeps signing for 24 h'],
  ['webhooks replay [--account acct_...] --mode test|live --since TIME|15m', 'deliver again every event since then to the current endpoint (events written with no endpoint are otherwise never sent)'],
  ['listen [--account acct_...] [--forward-to URL] [--port N] [--since TIME|15m]', "receive the account's test-mode webhooks here, verify each signature, print one JSON line per event and forward it; Ctrl-C puts the endpoint back"],
  ['machine --json', "print the lifecycle machine's config (createMachine or Stately's editor takes it)"],
  ['migrate', 'apply the database migrations (serve does it too)'],
  ['backup --to FILE', 'a consistent copy of the SQLite database, also while serve runs (PostgreSQL: pg_dump)'],
  ['health [--port N] [--host H]', "check a running server's /healthz (the Docker HEALTHCHECK)"],
];

const FOOTER = `--account may be left out when the database has exactly one account;
every command takes --db PATH and --config FILE (JSON or TOML) and prints JSON on stdout;
\`payforge <command> --help\` shows one command;
environment: PAYFORGE_CONFIG, PAYFORGE_PORT, PAYFORGE_HOST, PAYFORGE_DB, PAYFORGE_ADMIN_TOKEN, PAYFORGE_LOG_LEVEL
`;

/** The usage text: every command, or those whose name starts with `name` ("keys", "keys list"). */
export function usage(name?: string): string {
  const rows = HELP.filter(([synopsis]) => name === undefined || synopsis === name || synopsis.startsWith(`${name} `));
  const list = (rows.length ? rows : HELP).map(([synopsis, about]) => `  ${synopsis}\n      ${about}\n`).join('');
  return `usage: payforge <command> [options]\n\ncommands:\n${list}\n${FOOTER}`;
}

export const USAGE = usage();

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
  backup: async () => (await import('./backup')).backup,
  health: async () => (await import('./health')).health,
}));

/** Every command's name ("keys list"), for the help text's test. */
export const commandNames = (): string[] => [...COMMANDS.keys()];

/** Runs one command line; resolves to the exit code (serve resolves once listening). */
export async function run(argv: string[]): Promise<number> {
  let command: string | undefined;
  try {
    const isHelp = (a: string | undefined) => a === 'help' || a === '--help' || a === '-h';
    if (isHelp(argv[0])) {
      // `payforge help keys list` as well as `payforge keys list --help`.
      process.stdout.write(usage(argv.slice(1).join(' ') || undefined));
      return 0;
    }
    const two = `${argv[0]} ${argv[1]}`;
    if (argv.some((a) => a === '--help' || a === '-h')) {
      const name = COMMANDS.has(two) ? two : argv[0]!;
      const known = [...COMMANDS.keys()].some((c) => c === name || c.startsWith(`${name} `));
      if (!known) throw new UsageError(`Unknown command '${argv.filter((a) => a !== '--help' && a !== '-h').slice(0, 2).join(' ')}'`);
      process.stdout.write(usage(name));
      return 0;
    }
    // A Map, not an object: `payforge constructor` must be an unknown command, not Object's.
    const [name, rest] = COMMANDS.has(two) ? [two, argv.slice(2)] : [argv[0] ?? '', argv.slice(1)];
    const load = COMMANDS.get(name);
    if (!load) throw new UsageError(argv.length ? `Unknown command '${argv.slice(0, 2).join(' ')}'` : 'Missing command');
    command = name;
    await (await load())(rest);
    return 0;
  } catch (e) {
    return report(e, command);
  }
}

/** A usage error of a known command shows that command's usage (the whole list buried the reason). */
function report(e: unknown, command?: string): number {
  if (e instanceof UsageError) {
    process.stderr.write(`payforge: ${e.message}\n\n${command ? usage(command) : USAGE}`);
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
