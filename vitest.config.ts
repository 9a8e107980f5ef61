// vitest on the Bun runtime: the forks pool crashes under Bun, and Node cannot load bun:sqlite.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'threads',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    retry: 0,
    fileParallelism: true,
    maxWorkers: 2,
  },
});
