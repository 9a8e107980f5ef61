// Polling: wait until a check answers something truthy, or fail after a timeout.
export async function until<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs: number, everyMs: number, what: string): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== null && v !== false) return v;
    if (performance.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await Bun.sleep(everyMs);
  }
}
