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

/**
 * A markdown table of calls per intent, by method, for PayForge (submit path), the baseline and,
 * when given, PayForge's wallet-sends path (the wallet's own calls included).
 */
export function callsTable(
  n: number,
  pf: Record<string, number>,
  base: Record<string, number>,
  baseN: number,
  wallet?: { n: number; calls: Record<string, number> },
): string[] {
  const w = wallet?.calls ?? {};
  const methods = [...new Set([...Object.keys(pf), ...Object.keys(base), ...Object.keys(w)])].sort((a, b) => (pf[b] ?? 0) - (pf[a] ?? 0));
  const f = (v: number | undefined, d: number) => (v ? (v / d).toFixed(2) : '–');
  const third = (m: string) => (wallet ? ` ${f(w[m], wallet.n)} |` : '');
  return [
    `| RPC method | PayForge calls / intent | baseline calls / transfer |${wallet ? ' PayForge wallet sends, calls / intent |' : ''}`,
    `|---|---:|---:|${wallet ? '---:|' : ''}`,
    ...methods.map((m) => `| ${m} | ${f(pf[m], n)} | ${f(base[m], baseN)} |${third(m)}`),
    `| **total** | **${(sum(pf) / n).toFixed(2)}** | **${(sum(base) / baseN).toFixed(2)}** |${wallet ? ` **${(sum(w) / wallet.n).toFixed(2)}** |` : ''}`,
  ];
}
