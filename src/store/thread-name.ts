// A Worker thread's name as the OS shows it (/proc comm: `top -H`, `ps -L`, bench/create's CPU
// split): Bun names every Worker thread `Worker`. Linux only (15 bytes at most); elsewhere, or when
// /proc is not writable, the name stays as it was.
import { writeFileSync } from 'node:fs';

export function nameThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // Not Linux, or no /proc: only a label.
  }
}
