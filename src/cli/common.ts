// Shared CLI plumbing: strict argument parsing (every command takes --db and --config),
// JSON output on stdout, and opening the database the config names (SQLite file or PostgreSQL).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig } from '../config';
import type { Config } from '../config.types';
import { type Db, openDb } from '../store/db';
import { openStore, type Store, type StoreRepos } from '../store/store';
import { statesTagged } from '../../machines/judge';

/** Bad command line: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

const COMMON: Options = { db: { type: 'string' }, config: { type: 'string' } };

export function parse(argv: string[], options: Options, positionals = 0): { values: Values; positionals: string[] } {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: { ...COMMON, ...options }, strict: true, allowPositionals: positionals > 0 }) as typeof parsed;
  } catch (e) {
    // node:util's messages are already precise ("Unknown option '--x'"); keep them.
    throw new UsageError((e as Error).message);
  }
  if (parsed.positionals.length > positionals) throw new UsageError(`Unexpected argument '${parsed.positionals[positionals]}'`);
  return parsed;
}

export function required(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`Missing required option --${name}`);
  return v;
}

export function oneOf<T extends string>(value: string, name: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** The config from defaults, file, environment and the flags of this command line. */
export function configFrom(values: Values, extra: { port?: string; host?: string; inspect?: boolean | string } = {}): Config {
  return loadConfig({ db: values.db as string | undefined, config: values.config as string | undefined, ...extra });
}

/** Open the configured store (on SQLite, WAL: safe beside a running server), run fn, close. */
export async function withStore<T>(config: Config, fn: (store: Store) => T | Promise<T>): Promise<T> {
  const store = await openCliStore(config);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The store a CLI command works on (no background threads: it exits when done). */
export function openCliStore(config: Config): Promise<Store> {
  // Errors go to stderr as the command's own message; the store logs nothing worth a line here.
  return openStore(config, { states: { live: statesTagged('live'), watching: statesTagged('watching') }, log: () => {}, oneShot: true });
}

/** Open the configured SQLite file itself (migrate reports what the file records). */
export async function withDb<T>(config: Config, fn: (db: Db) => T | Promise<T>): Promise<T> {
  const db = openDb(config.db);
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}

export function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/**
 * The account a command acts on: --account when given; with exactly one account in the
 * database it may be omitted (the bootstrap case), otherwise the user is told how to find it.
 */
export async function accountOf(repos: Pick<StoreRepos, 'accounts'>, values: Values): Promise<string> {
  const given = values.account;
  if (typeof given === 'string' && given !== '') return given;
  const all = await repos.accounts.list();
  if (all.length === 1) return all[0]!.id;
  throw new UsageError(
    all.length === 0
      ? 'Missing --account: the database has no account yet (payforge accounts create --name NAME)'
      : `Missing --account: the database has ${all.length} accounts (payforge accounts list shows them)`,
  );
}

/** Epoch ms as ISO 8601, null stays null (CLI lists show times the way the API does). */
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
