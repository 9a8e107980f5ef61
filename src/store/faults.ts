// Test-only fault injection, reachable only through createCore's `faults` option (never from
// config or HTTP): make the COMMIT of the transaction under way fail, as a full disk or an I/O
// error would, after every statement in it has succeeded.
import type { Database } from 'bun:sqlite';

export function failThisCommit(sqlite: Database): void {
  // A deferred foreign-key violation passes its statement and is checked only at COMMIT, which
  // then fails and leaves the transaction to be rolled back (the pragma ends with it).
  sqlite.exec('PRAGMA defer_foreign_keys = ON');
  sqlite
    .query("INSERT INTO api_keys (id, account_id, mode, hash, last4, created_at) VALUES (?, 'acct_fault_no_such_account', 'test', ?, '0000', 0)")
    .run(`key_fault_${crypto.randomUUID()}`, crypto.randomUUID());
}
