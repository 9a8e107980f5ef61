// Numeric bench knobs from the environment (BENCH_N and the like): a positive number or the default.
export const env = (name: string, dflt: number) => {
  const v = process.env[name];
  const n = v === undefined ? dflt : Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return n;
};
