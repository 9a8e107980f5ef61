// Which test files the PostgreSQL run (vitest.pg.config.ts) leaves out, and why. Kept apart from
// the config so test/architecture/dual-store.test.ts can check the lists without loading Vite.

/** SQLite by nature: what they test is the SQLite engine or a fault only it has. */
export const SQLITE_ONLY: Record<string, string> = {
  'test/store/wal-sync.test.ts': 'the WAL fdatasync thread and the checkpoint worker are SQLite machinery',
  'test/store/group-commit.test.ts': "SQLite's group committer (one transaction, a savepoint per write)",
  'test/store/intents.test.ts': 'the SQLite intents repository (PG: test/store/pg/intents.test.ts)',
  'test/store/outbox-idempotency.test.ts': 'the SQLite outbox/idempotency repositories and migrations on reopen (PG: test/store/pg/outbox-idempotency.test.ts)',
  'test/store/detection.test.ts': "the SQLite detection queries on its partial indexes (PG: test/store/pg/detection.test.ts)",
  'test/cli/single-instance.test.ts': 'the single-instance file lease of one SQLite file (several instances are the point of PostgreSQL)',
  'test/e2e/submit-crash.test.ts': 'kill -9 of serve on a SQLite file: crash safety of the WAL and its fsync',
  'test/webhooks/crash.test.ts': 'kill -9 of serve on a SQLite file while deliveries stream: WAL crash safety',
  'test/actors/runtime-commit-fault.test.ts': "the COMMIT fault (failThisCommit) fails SQLite's group-commit batch; PostgreSQL has no such hook",
  'test/e2e/report-commit-fault.test.ts': "createCore's faults.chainReport fails the COMMIT through SQLite's failThisCommit",
  'test/actors/leased-work.test.ts': "its own core on a SQLite file, a shard lease stolen by raw SQL on it (leases on both engines: test/actors/work-leases, test/cluster)",
  'test/cli/cli.test.ts': 'checks the SQLite file itself (key hashes in the WAL file bytes, PRAGMAs, migrate of a file path); PG migrate: test/cli/migrate-pg.test.ts',
  'test/cli/listen.test.ts': 'serve and listen processes on a SQLite --db path, checked through bun:sqlite (not yet on the neutral support)',
  'test/webhooks/dispatcher.test.ts': 'built on test/webhooks/factory.ts, raw SQL on a bun:sqlite file (PG dispatch: test/store/pg/webhooks.test.ts)',
  'test/webhooks/read-side.test.ts': 'built on test/webhooks/factory.ts, raw SQL on a bun:sqlite file (the API read side runs on PG in test/api/webhook*.test.ts)',
  'test/webhooks/units.test.ts': "the SQLite dispatch claim's SQL (PG claim: test/store/pg/webhooks.test.ts)",
};

/** Run once, in the default run: they open no store, or test both engines themselves. */
export const ONCE: Record<string, string> = {
  'test/store/pg/**': 'PostgreSQL store tests: PostgreSQL already',
  'test/store/claims-leases.test.ts': 'both engines in the file',
  'test/actors/work-leases.test.ts': 'both engines in the file',
  'test/cli/migrate-pg.test.ts': 'PostgreSQL already',
  'test/api/store-unavailable-pg.test.ts': 'PostgreSQL already (stopped and restarted under the server)',
  'test/cluster/**': 'PostgreSQL already (several serve processes on one database)',
  'test/store/intents-repo.test.ts': 'both engines in the file',
  'test/store/submissions-payments.test.ts': 'both engines in the file',
  'test/store/bootstrap.test.ts': 'both engines in the file',
  'test/intents/found-transfer-locks.test.ts': 'PostgreSQL already (row locks of the matcher)',
  'test/deploy/**': 'the compose example read against the config loader: it opens no database',
  'test/machines/**': 'no store',
  'test/domain/**': 'no store',
  'test/chains/evm/base-submit.test.ts': 'no store (adapter on anvil)',
  'test/chains/evm/base-watch.test.ts': 'no store (watcher on anvil)',
  'test/chains/evm/lagging-node.test.ts': 'no store (watcher on anvil)',
  'test/chains/evm/rpc-failover.test.ts': 'no store (adapter through the RPC pool)',
  'test/chains/evm/tempo.test.ts': 'no store (adapter on anvil)',
  'test/chains/solana/**': 'no store (adapter and watcher on LiteSVM)',
  'test/rpc/**': 'no store',
  'test/screening/**': 'no store',
  'test/config/**': 'no store',
  'test/log.test.ts': 'no store',
  'test/readme/**': 'no store (README against the machine)',
  'test/actors/step.test.ts': 'no store (pure step)',
  'test/architecture/**': 'source checks (imports, lint rules, these lists): they read files, not a database',
  'test/binary/**': 'the compiled binary (serve on its own SQLite default)',
  'test/cli/machine-config.test.ts': 'the CLI prints the machine (machine --json): it opens no database',
};
