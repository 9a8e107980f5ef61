// A real PostgreSQL cluster in a temp folder: Debian's `postgresql` package (binaries under
// /usr/lib/postgresql/<major>/bin; `.ci/run` installs it), on a free port, its unix socket in that
// folder. No vitest here, so benches and child processes can start one too; tests use
// test/support/postgres.ts. A machine without PostgreSQL FAILS with a message naming the package.
//
// Cleanup, so no server outlives its owner: destroy(); an exit hook signals the postmaster (its
// pid read from postmaster.pid); and a detached watchdog shell stops it and removes the folder
// once the owning process is gone, even after kill -9 (pg_ctl daemonizes the postmaster, so
// nothing else would).
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

const PACKAGE_HINT =
  "The PostgreSQL tests need a PostgreSQL server: `apt-get install -y postgresql` (Debian's package, what .ci/run does), " +
  'or set PAYFORGE_PG_BIN to a folder holding initdb, pg_ctl and postgres.';

/** The folder holding initdb/pg_ctl/postgres: $PAYFORGE_PG_BIN, else the newest `<root>/<major>/bin`. */
export function findPostgresBin(root = '/usr/lib/postgresql', fromEnv = process.env.PAYFORGE_PG_BIN): string {
  if (fromEnv) {
    if (!existsSync(join(fromEnv, 'pg_ctl')))
      throw new Error(`PAYFORGE_PG_BIN=${fromEnv} holds no pg_ctl. ${PACKAGE_HINT}`);
    return fromEnv;
  }
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((m) => /^\d+$/.test(m) && existsSync(join(root, m, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0) throw new Error(`No PostgreSQL found under ${root}/<major>/bin. ${PACKAGE_HINT}`);
  return join(root, majors[0]!, 'bin');
}

const AS_ROOT = process.getuid?.() === 0;

/** The command line running `bin/tool args` as the `postgres` user when we are root (PostgreSQL refuses root). */
function asOwner(bin: string, tool: string, args: string[]): [string, string[]] {
  const exe = join(bin, tool);
  return AS_ROOT ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
}

function run(bin: string, tool: string, args: string[]): Promise<void> {
  const [cmd, argv] = asOwner(bin, tool, args);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', (e) => reject(new Error(`${tool}: ${e.message}. ${PACKAGE_HINT}`)));
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${tool} ${args.join(' ')} exited with ${code}:\n${out}`)),
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface PgCluster {
  port: number;
  /** The folder of the unix socket (also the temp root of this cluster). */
  socketDir: string;
  dataDir: string;
  /** `postgres://postgres@127.0.0.1:<port>/<database>` (trust auth; default database `postgres`). */
  url(database?: string): string;
  /** Shut the server down (`fast`: sessions are ended, as in a restart; `immediate`: as in a crash). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Start it again on the same port and data (URLs handed out before stay valid). */
  start(): Promise<void>;
  running(): boolean;
}

export type OwnedCluster = PgCluster & { destroy(): Promise<void> };

export interface ClusterOptions {
  /** fsync off by default: a killed server's writes are in the OS page cache and survive; only an OS crash loses them. */
  fsync?: boolean;
}

/** Starts a new cluster (most tests want freshDatabaseUrl() instead). The caller owns it: destroy() it. */
export async function startCluster(opts: ClusterOptions = {}): Promise<OwnedCluster> {
  const bin = findPostgresBin();
  const root = mkdtempSync(join(tmpdir(), 'payforge-pg-'));
  const dataDir = join(root, 'data');
  // The server runs as `postgres`, so it must own the folder (mkdtemp makes it 0700 for root).
  if (AS_ROOT) chownSync(root, ...postgresIds());
  writeFileSync(join(root, 'owner.pid'), String(process.pid));
  const watchdog = startWatchdog(bin, root, dataDir);
  try {
    // A copy of one initdb'd template (cp -a keeps the owner): ~0.1 s instead of an initdb per cluster.
    await copyDir(await templateDataDir(bin), dataDir);
  } catch (e) {
    watchdog.kill();
    rmSync(root, { recursive: true, force: true });
    throw e;
  }
  let port = 0;
  let up = false;
  const settings = (p: number) =>
    [
      `port = ${p}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${root}'`,
      `fsync = ${opts.fsync ? 'on' : 'off'}`,
      `full_page_writes = ${opts.fsync ? 'on' : 'off'}`,
      'max_connections = 200',
      'shared_buffers = 32MB',
      'log_min_messages = warning',
    ].join('\n');
  const start = async () => {
    const logFile = join(root, 'server.log');
    await run(bin, 'pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '120']).catch((e: Error) => {
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
      throw new Error(`${e.message}\nserver log:\n${log}`);
    });
    up = true;
  };
  // A free port can be taken between asking and binding: try a few.
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    writeFileSync(join(dataDir, 'postgresql.auto.conf'), settings(port) + '\n');
    try {
      await start();
      break;
    } catch (e) {
      if (attempt >= 3 || !/could not (bind|create listen)|already in use/i.test(String(e))) {
        watchdog.kill();
        rmSync(root, { recursive: true, force: true });
        throw e;
      }
    }
  }
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    if (!up) return;
    await run(bin, 'pg_ctl', ['stop', '-D', dataDir, '-m', mode, '-w', '-t', '120']);
    up = false;
  };
  const onExit = () => signalPostmaster(dataDir);
  process.on('exit', onExit);
  return {
    port,
    socketDir: root,
    dataDir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    stop,
    start,
    running: () => up,
    async destroy() {
      process.off('exit', onExit);
      await stop('immediate').catch(() => signalPostmaster(dataDir));
      watchdog.kill();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function copyDir(from: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('cp', ['-a', from, to], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`cp -a ${from} ${to}: ${err}`))));
  });
}

/**
 * A data folder made by initdb once per machine, user and PostgreSQL major version, kept in the
 * temp folder and never started (clusters copy it). It appears by an atomic rename only once
 * initdb finished, so a folder of that name is always complete; test workers racing to make it
 * keep whichever rename wins.
 */
async function templateDataDir(bin: string): Promise<string> {
  const dir = join(tmpdir(), `payforge-pg-template-${basename(dirname(bin))}-${process.getuid?.() ?? 0}`);
  if (existsSync(join(dir, 'PG_VERSION'))) return dir;
  const staging = mkdtempSync(join(tmpdir(), 'payforge-pg-staging-'));
  try {
    if (AS_ROOT) chownSync(staging, ...postgresIds());
    await run(bin, 'initdb', ['-D', join(staging, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    try {
      renameSync(join(staging, 'data'), dir);
    } catch (e) {
      if (!existsSync(join(dir, 'PG_VERSION'))) throw e;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/** The uid and gid of the `postgres` user (the server runs as it when the tests run as root). */
function postgresIds(): [number, number] {
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const uid = id('-u');
  if (uid.status !== 0) throw new Error(`Running as root but there is no 'postgres' user. ${PACKAGE_HINT}`);
  return [Number(uid.stdout.trim()), Number(id('-g').stdout.trim())];
}

/** SIGQUIT (immediate shutdown) to the postmaster named in postmaster.pid, if any. */
function signalPostmaster(dataDir: string): void {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (pid > 0) process.kill(pid, 'SIGQUIT');
  } catch {
    /* not running */
  }
}

/**
 * A detached shell that outlives a killed test process: once our pid is gone it stops the server
 * (immediate) and removes the folder. pg_ctl daemonizes the postmaster, so nothing else would.
 */
function startWatchdog(bin: string, root: string, dataDir: string) {
  const [cmd, argv] = asOwner(bin, 'pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']);
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const script =
    `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ` +
    `${[cmd, ...argv].map(quote).join(' ')} >/dev/null 2>&1; rm -rf ${quote(root)}`;
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  return { kill: () => child.kill('SIGKILL') };
}
