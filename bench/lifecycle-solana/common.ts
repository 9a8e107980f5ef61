// Shared by bench/lifecycle-solana and bench/lifecycle-evm: env knobs, a bounded worker pool,
// percentiles, a webhook receiver that resolves per-intent waiters, the machine line and the
// RESULTS.md writer (a marked block under the bench's own `## name` heading).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { startReceiver, type Receiver } from '../../test/support/receiver';

export const env = (name: string, dflt: number) => {
  const v = process.env[name];
  const n = v === undefined ? dflt : Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return n;
};

/** Run fn(0..n-1) with at most `concurrency` in flight; errors are collected, never thrown. */
export async function pool<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<{ results: (T | undefined)[]; errors: string[]; seconds: number }> {
  const results: (T | undefined)[] = new Array(n);
  const errors: string[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      for (let i = next++; i < n; i = next++) {
        try {
          results[i] = await fn(i);
        } catch (e) {
          errors.push(`#${i}: ${(e as Error)?.message ?? String(e)}`.slice(0, 300));
        }
      }
    }),
  );
  return { results, errors, seconds: (performance.now() - t0) / 1000 };
}

export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};

export async function until<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs: number, everyMs: number, what: string): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== null && v !== false) return v;
    if (performance.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await Bun.sleep(everyMs);
  }
}

export interface Hooks {
  receiver: Receiver;
  url: string;
  /** Resolves with performance.now() when intent.finalized for `intentId` arrives. */
  finalized(intentId: string, timeoutMs: number): Promise<number>;
  /** Webhook count by event type. */
  counts(): Record<string, number>;
  close(): Promise<void>;
}

/** A loopback receiver (test/support/receiver.ts) that timestamps each intent.finalized. */
export function startHooks(): Hooks {
  const receiver = startReceiver();
  const at = new Map<string, number>();
  const waiters = new Map<string, (t: number) => void>();
  const counts: Record<string, number> = {};
  receiver.setHandler((req) => {
    const t = performance.now();
    try {
      const e = JSON.parse(req.body) as { type: string; data: { intent: { id: string } } };
      counts[e.type] = (counts[e.type] ?? 0) + 1;
      if (e.type === 'intent.finalized' && !at.has(e.data.intent.id)) {
        at.set(e.data.intent.id, t);
        waiters.get(e.data.intent.id)?.(t);
      }
    } catch {
      /* not ours */
    }
    return { status: 200 };
  });
  return {
    receiver,
    url: receiver.url('/bench'),
    finalized(id, timeoutMs) {
      const seen = at.get(id);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(id);
          reject(new Error(`no intent.finalized webhook for ${id} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.set(id, (t) => {
          clearTimeout(timer);
          waiters.delete(id);
          resolve(t);
        });
      });
    },
    counts: () => ({ ...counts }),
    close: () => receiver.close(),
  };
}

export function machine(): string {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? 'unknown';
  return `${navigator.hardwareConcurrency} cores (nproc), ${model}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Bun ${Bun.version}, ${process.platform}/${process.arch}, load average at start ${LOAD_AT_START}`;
}

export const isoNow = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/** Taken at start-up: the machine may be shared, and the load average says how busy it was. */
export const LOAD_AT_START = loadavg().map((x) => x.toFixed(2)).join(' ');

/** Calls by method, after minus before. */
export function diffCalls(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    if (d > 0) out[k] = d;
  }
  return out;
}

export const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** A markdown table of calls per intent, by method, for two columns (PayForge, baseline). */
export function callsTable(n: number, pf: Record<string, number>, base: Record<string, number>, baseN: number): string[] {
  const methods = [...new Set([...Object.keys(pf), ...Object.keys(base)])].sort((a, b) => (pf[b] ?? 0) - (pf[a] ?? 0));
  const f = (v: number | undefined, d: number) => (v ? (v / d).toFixed(2) : '–');
  return [
    '| RPC method | PayForge calls / intent | baseline calls / transfer |',
    '|---|---:|---:|',
    ...methods.map((m) => `| ${m} | ${f(pf[m], n)} | ${f(base[m], baseN)} |`),
    `| **total** | **${(sum(pf) / n).toFixed(2)}** | **${(sum(base) / baseN).toFixed(2)}** |`,
  ];
}

/** Replace (or add) this bench's marked block under its `## name` heading in bench/RESULTS.md. */
export function writeResults(name: string, md: string): string {
  const file = join(import.meta.dir, '..', 'RESULTS.md');
  const START = `<!-- bench/${name} latest: written by \`bun bench/${name}/run.ts --write\` -->`;
  const END = `<!-- /bench/${name} latest -->`;
  const block = `${START}\n${md}\n${END}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const heading = new RegExp(`^## ${name}$`, 'm');
  if (text.includes(START) && text.includes(END)) {
    text = text.slice(0, text.indexOf(START)) + block + text.slice(text.indexOf(END) + END.length);
  } else if (heading.test(text)) {
    text = text.replace(heading, `## ${name}\n\n${block}`);
  } else {
    text = `${text.trimEnd()}\n\n## ${name}\n\n${block}\n`;
  }
  writeFileSync(file, text);
  return file;
}

/** The first stdout line of a child process, parsed as JSON (children announce their URLs so). */
export async function firstLine<T = any>(stream: ReadableStream<Uint8Array>, timeoutMs = 30_000): Promise<T> {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let out = '';
  const deadline = setTimeout(() => reader.cancel('timeout').catch(() => {}), timeoutMs);
  while (!out.includes('\n')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`child closed stdout before its first line: ${out}`);
    out += dec.decode(value);
  }
  clearTimeout(deadline);
  reader.releaseLock();
  return JSON.parse(out.slice(0, out.indexOf('\n'))) as T;
}

/** Event-loop lag of this process: how late a 10 ms timer fires, sampled until stop(). */
export function lagProbe(everyMs = 10): { stop(): { p50: number; p99: number; max: number } } {
  const lags: number[] = [];
  let expected = performance.now() + everyMs;
  const timer = setInterval(() => {
    const t = performance.now();
    lags.push(Math.max(0, t - expected));
    expected = t + everyMs;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return { p50: pct(lags, 50), p99: pct(lags, 99), max: Math.max(0, ...lags) };
    },
  };
}
