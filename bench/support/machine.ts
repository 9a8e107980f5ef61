// The machine a bench ran on (cores, CPU model, RAM, Bun, load average at start), for its report.
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';

/** Taken at start-up: the machine may be shared, and the load average says how busy it was. */
export const LOAD_AT_START = loadavg().map((x) => x.toFixed(2)).join(' ');

/** The CPU model name from /proc/cpuinfo, else from os.cpus(). */
export function cpuModel(): string {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  return /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? 'unknown';
}

export function machine(): string {
  return `${navigator.hardwareConcurrency} cores (nproc), ${cpuModel()}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Bun ${Bun.version}, ${process.platform}/${process.arch}, load average at start ${LOAD_AT_START}`;
}
