// CPU time of other processes (spawned `payforge serve` instances, a PostgreSQL server and its
// backends) from /proc/<pid>/stat, so a bench can charge each request with the CPU of every
// process that served it, not only its own.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const TICK_US = 1e6 / 100; // USER_HZ is 100 on Linux (getconf CLK_TCK)

/** utime + stime of one process in µs (0 once it is gone). */
export function cpuUs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_US;
  } catch {
    return 0;
  }
}

/** The postmaster of a data folder and its children (backends, checkpointer, WAL writer …). */
export function postgresPids(dataDir: string): number[] {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return [];
  const pm = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const kids = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pm;
      } catch {
        return false;
      }
    });
  return [pm, ...kids];
}

/** CPU µs summed over pids; processes that exited in between are not counted. */
export const totalCpuUs = (pids: number[]): number => pids.reduce((sum, pid) => sum + cpuUs(pid), 0);

/**
 * CPU µs of this process's threads by kind: the main thread (the event loop), the threads whose
 * name (/proc comm) is `named` (`Worker` for Bun's Workers, `HTTP Client` for fetch's thread), and
 * the rest (JIT, GC helpers, the I/O pool); and every thread name's sum (`byName`: PayForge names its
 * Workers pf-dispatch, pf-checkpoint, pf-writer, src/store/thread-name.ts). 10 ms clock ticks: a rough
 * split. NaN off Linux.
 */
export function threadCpuUs(named: string | ((comm: string) => boolean)): { main: number; named: number; other: number; byName: Map<string, number> } {
  const isNamed = typeof named === 'string' ? (c: string) => c === named : named;
  const out = { main: 0, named: 0, other: 0, byName: new Map<string, number>() };
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      } catch {
        continue; // the thread ended meanwhile
      }
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const us = (Number(f[11]) + Number(f[12])) * TICK_US;
      out.byName.set(comm, (out.byName.get(comm) ?? 0) + us);
      if (tid === String(process.pid)) out.main += us;
      else if (isNamed(comm)) out.named += us;
      else out.other += us;
    }
  } catch {
    return { main: Number.NaN, named: Number.NaN, other: Number.NaN, byName: new Map() };
  }
  return out;
}
