// Whether another connection committed to the database file since the last look: SQLite's
// `PRAGMA data_version` changes on this connection only when a commit by ANOTHER connection (a
// CLI command, a second process, a test's side connection) became visible to it; this
// connection's own commits and the checkpoint worker's PASSIVE passes leave it as it is (a
// TRUNCATE checkpoint elsewhere changes it too: a false "changed" only costs a scan).
import type { Database } from 'bun:sqlite';

/** A probe: true on its first call and whenever another connection committed since the last call. */
export function changedElsewhere(sqlite: Database): () => boolean {
  const version = sqlite.prepare<{ data_version: number }, []>('PRAGMA data_version');
  let seen: number | null = null;
  return () => {
    const v = version.get()!.data_version;
    const changed = v !== seen;
    seen = v;
    return changed;
  };
}
