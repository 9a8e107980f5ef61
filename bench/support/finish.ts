// The end of a lifecycle bench: record a clean run in bench/RESULTS.md when asked (--write), else report failures; exit 0 or 1.
import type { PhaseResult } from './phase';
import { writeResults } from './results-md';

export function finish(name: string, md: string, base: PhaseResult, pf: PhaseResult, write: boolean, wallet?: PhaseResult): never {
  const failures = [...base.errors.map((e) => `baseline ${e}`), ...pf.errors.map((e) => `PayForge ${e}`), ...(wallet?.errors ?? []).map((e) => `wallet sends ${e}`)];
  if (write && failures.length === 0) console.log(`\nwritten to ${writeResults(name, md)}`);
  if (failures.length > 0) {
    console.error(failures.slice(0, 20).join('\n'));
    process.exit(1);
  }
  process.exit(0);
}
