// The bench driver loop: a bounded worker pool that runs fn(0..n-1) and times the whole pass.
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
