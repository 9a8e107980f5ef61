// When the SQLite store stops acknowledging writes, what a request and /readyz see (contract
// sections 7 and 13, as for an unreachable PostgreSQL: src/store/pg/connect.ts): 503
// store.unavailable with retry_after, never 500. Two ways it happens:
// - a failed sync (the WAL's fdatasync, or the checkpointer's of the database file): nothing is
//   acknowledged again until a restart (commit-sync.ts refuse(): after a failed write-back the page
//   cache cannot be trusted), so /readyz stays 503;
// - a disk that is full or failing a statement or a COMMIT (SQLITE_FULL, SQLITE_IOERR_*): that write
//   fails and nothing else changes (no page pretends to be written); /readyz answers 503 from then
//   on until a probe write (probeRoom) fits again, so a disk that gets room back becomes ready.
import { open, unlink } from 'node:fs/promises';
import { AppError } from '../domain/errors';

/** A failed sync needs an operator (fix the disk, restart): retrying sooner is pointless. */
export const REFUSED_RETRY_AFTER_SECONDS = 30;
/** A full disk may get room back any time (a log rotated, a file deleted). */
export const DISK_RETRY_AFTER_SECONDS = 5;

/** The code the intent writer thread gives a create it refused because the server's sync had failed. */
export const WRITES_REFUSED_CODE = 'PAYFORGE_WRITES_REFUSED';

/** The error every write and every durability wait fails with once a sync failed (until restart). */
export function writesRefused(cause: unknown): AppError {
  return new AppError('store.unavailable', 'The server stopped accepting writes: its disk failed to make them durable. It needs an operator (fix the disk, restart); retry later.', {
    details: { retry_after: REFUSED_RETRY_AFTER_SECONDS },
    cause,
  });
}

function diskTrouble(cause: unknown): AppError {
  return new AppError('store.unavailable', 'The server cannot write to its database right now (its disk is full or failing); retry shortly.', {
    details: { retry_after: DISK_RETRY_AFTER_SECONDS },
    cause,
  });
}

const codeOf = (e: unknown): string | null => {
  const c = (e as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : null;
};

/** SQLite's answers for a disk that refused a write or a read: no room, or an I/O error. */
const DISK_CODES = /^SQLITE_(FULL|IOERR)/;

/** Bytes written (and synced) by the readiness probe: about one busy batch's WAL frames. */
const PROBE_BYTES = 256 * 1024;

export interface DiskRefusal {
  /**
   * `e` as the request should see it: a disk's refusal (SQLITE_FULL, SQLITE_IOERR_*, the writer
   * thread's refusal) becomes AppError store.unavailable (the sync failure's own once writes are
   * refused); anything else is returned as it is. A disk's refusal makes /readyz 503 until check()
   * finds room again.
   */
  errorOf(e: unknown): unknown;
  /** /readyz: throws AppError store.unavailable while writes are refused or the disk has no room. */
  check(): Promise<void>;
}

/**
 * `dbPath`: the SQLite file (the probe writes beside it, on the same file system). `refused`: the
 * error writes fail with once a sync failed (the group committer's, or the write gate's), else null.
 */
export function diskRefusal(dbPath: string, refused: () => AppError | null): DiskRefusal {
  // A disk's refusal was seen and no probe has fitted since.
  let troubled = false;
  let probing: Promise<boolean> | null = null;
  return {
    errorOf(e) {
      if (e instanceof AppError) return e;
      const code = codeOf(e);
      if (code === null) return e;
      if (code === WRITES_REFUSED_CODE) return refused() ?? writesRefused(e);
      if (!DISK_CODES.test(code)) return e;
      const r = refused();
      if (r !== null) return r;
      troubled = true;
      return diskTrouble(e);
    },
    async check() {
      const r = refused();
      if (r !== null) throw r;
      if (!troubled) return;
      // One probe at a time, whoever asks.
      probing ??= probeRoom(`${dbPath}-probe`).finally(() => (probing = null));
      if (await probing) troubled = false;
      else throw diskTrouble(new Error('the readiness probe found no room on the disk'));
    },
  };
}

/**
 * Whether PROBE_BYTES can be written and synced in a new file at `path` (removed after): a real
 * write, so quotas, reserved blocks and a dying disk answer as they do for SQLite. Off the event
 * loop (the thread pool), and only while a refusal is unanswered.
 */
async function probeRoom(path: string): Promise<boolean> {
  let fh: Awaited<ReturnType<typeof open>> | null = null;
  try {
    fh = await open(path, 'w');
    await fh.write(Buffer.alloc(PROBE_BYTES, 0));
    await fh.datasync();
    return true;
  } catch {
    return false;
  } finally {
    await fh?.close().catch(() => {});
    await unlink(path).catch(() => {});
  }
}
