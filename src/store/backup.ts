// `payforge backup`: a consistent copy of a SQLite database, also while `serve` runs. VACUUM INTO
// reads one snapshot of the database (WAL included) in a read transaction, so it never blocks the
// server's writes, and writes a compacted file. The running instance's lease row (the single-serve
// guard, src/store/instance-lease.ts) is removed from the copy: it names a process that does not
// run where the copy is restored, and would refuse a serve started on the copy for
// cluster.leaseSeconds. Work leases stay: a serve on SQLite takes every one of them at start.
import { statSync } from 'node:fs';
import { type Db, openDb } from './db';

/** Writes the copy to `target` (which must not exist) and returns its size in bytes. */
export function backupInto(db: Db, target: string): number {
  db.sqlite.query('VACUUM INTO ?').run(target);
  const copy = openDb(target);
  try {
    copy.sqlite.query('DELETE FROM instance_leases').run();
  } finally {
    copy.close();
  }
  return statSync(target).size;
}
