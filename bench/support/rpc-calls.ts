// RPC calls by method: counter differences, totals, and the per-intent table of a lifecycle report.
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
