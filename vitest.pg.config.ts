// The same suite again on PostgreSQL (issue 12: "the whole existing API and lifecycle suite runs
// against both stores"): PAYFORGE_TEST_STORE=postgres makes test/support (startTestServer,
// scripted cores, freshTestDatabase, adminStore) open a fresh PostgreSQL database per server or
// core instead of a temp SQLite file. Every test file runs here unless vitest.pg.lists.ts lists it with why;
// test/architecture/dual-store.test.ts fails when a listed file does not exist, or when a file
// said to open no store does.
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';
import { ONCE, SQLITE_ONLY } from './vitest.pg.lists';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      name: 'postgres',
      env: { PAYFORGE_TEST_STORE: 'postgres' },
      exclude: [...Object.keys(SQLITE_ONLY), ...Object.keys(ONCE), '**/node_modules/**'],
    },
  }),
);
