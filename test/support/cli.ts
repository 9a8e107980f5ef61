// Runs the payforge CLI (from source, or a compiled binary) as a real subprocess, with an
// environment free of the caller's PAYFORGE_* variables so tests see only what they set.
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MAIN = join(REPO_ROOT, 'src', 'main.ts');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws with the output when it is not). */
  json<T = any>(): T;
}

export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('PAYFORGE_')) env[k] = v;
  return { ...env, ...extra };
}

/** `bun src/main.ts ...args`, or `bin ...args` when opts.bin is given. */
export async function runCli(args: string[], opts: { env?: Record<string, string>; cwd?: string; bin?: string } = {}): Promise<CliResult> {
  const cmd = opts.bin ? [opts.bin, ...args] : [process.execPath, MAIN, ...args];
  const proc = Bun.spawn(cmd, { cwd: opts.cwd ?? REPO_ROOT, env: cleanEnv(opts.env), stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return {
    code,
    stdout,
    stderr,
    json() {
      try {
        return JSON.parse(stdout);
      } catch {
        throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${stderr}`);
      }
    },
  };
}

/** A long-running `serve`: resolves with its first stdout line (the JSON with url/testKey). */
export async function startServe(args: string[], opts: { env?: Record<string, string>; cwd?: string; bin?: string } = {}) {
  const cmd = opts.bin ? [opts.bin, ...args] : [process.execPath, MAIN, ...args];
  const proc = Bun.spawn(cmd, { cwd: opts.cwd ?? REPO_ROOT, env: cleanEnv(opts.env), stdout: 'pipe', stderr: 'pipe' });
  let stderr = '';
  void (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  const reader = proc.stdout.getReader();
  let out = '';
  while (!out.includes('\n')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited before printing its url (exit ${await proc.exited}):\n${stderr}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const first = JSON.parse(out.slice(0, out.indexOf('\n'))) as { url: string; testKey?: string };
  return {
    proc,
    ...first,
    stderr: () => stderr,
    /** SIGTERM and the exit code. */
    async stop(): Promise<number> {
      proc.kill('SIGTERM');
      return proc.exited;
    },
  };
}

/** A port nobody listens on right now (the OS picks it; released before we return). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
