// fdatasync of the database's WAL file on Bun's I/O thread pool, so that the wait for the disk
// never blocks the event loop. The group committer commits its batches with synchronous=NORMAL
// (frames written to the WAL, no sync) and resolves them only after this sync returns: the same
// guarantee as synchronous=FULL (the commit frame is on disk before anyone is told), with the
// fsync moved to another thread. See the README's Decisions ("fsync off the event loop").
import { closeSync, fdatasync, fstatSync, openSync, realpathSync, statSync } from 'node:fs';

export interface WalSync {
  /** Flush every WAL frame written so far to the disk. Rejects on an I/O error. */
  sync(): Promise<void>;
  close(): void;
}

/** `dbPath` is the SQLite file; its connection must already be in WAL mode (the -wal file exists). */
export function createWalSync(dbPath: string): WalSync {
  // SQLite names the WAL after the database file's real path (it follows symlinks): so do we.
  const walPath = `${realpathSync(dbPath)}-wal`;
  let fd: number | null = null;

  function open(): number {
    if (fd !== null) {
      // SQLite deletes the WAL only when the last connection closes, and never while ours is
      // open; a TRUNCATE checkpoint keeps the inode. Checked anyway: a sync of a replaced file
      // would be a silent lie.
      const a = fstatSync(fd);
      const b = statSync(walPath, { throwIfNoEntry: false });
      if (b && a.ino === b.ino && a.dev === b.dev) return fd;
      closeSync(fd);
    }
    fd = openSync(walPath, 'r');
    return fd;
  }

  return {
    sync() {
      return new Promise<void>((resolve, reject) => {
        let f: number;
        try {
          f = open();
        } catch (e) {
          reject(e);
          return;
        }
        fdatasync(f, (err) => (err ? reject(err) : resolve()));
      });
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
