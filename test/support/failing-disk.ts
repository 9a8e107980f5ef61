// A disk whose writes really fail, for the durability tests (no mock, no fault injection in the
// code under test): an ext4 on a loop device whose backing file is a sparse file on a small tmpfs.
// fill() fills the tmpfs: from then on every write-back of a NEW block of the ext4 fails in the
// loop device (ENOSPC from tmpfs, an I/O error to ext4), so write() still succeeds and the
// following fsync/fdatasync fails (EIO/ENOSPC), exactly as a dying disk; free() empties it again
// (a disk back after a transient fault). Linux reports a failed write-back once per open file:
// a later fsync returns clean, the pages never written (fsyncgate). remount() drops the page
// cache, so what is read back is what the disk got.
//
// Needs root, a free /dev/loop* and mkfs.ext4 (the CI machine runs as root, as the PostgreSQL and
// browser tests' installs do); fails, never skips, without them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, closeSync, writeSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FailingDisk {
  /** The mounted ext4's directory. */
  dir: string;
  /** The tmpfs under it: fill() writes there. */
  backing: string;
  fill(): void;
  free(): void;
  /** Unmount and mount again (every file on it must be closed): the page cache is dropped. */
  remount(): void;
  dispose(): void;
}

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** Fill the tmpfs at `backing` (a file until ENOSPC). Also usable from another process. */
export function fillBacking(backing: string): void {
  const fd = openSync(join(backing, 'fill'), 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    if ((e as { code?: string }).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
}

export function freeBacking(backing: string): void {
  unlinkSync(join(backing, 'fill'));
}

/**
 * `imageMb`: the ext4's size (64 by default, past the 16 MB tmpfs: fill() makes write-backs fail);
 * below 16, the ext4 itself fills up first (write() refused with ENOSPC: a full disk, nothing lost).
 */
export function failingDisk(o: { imageMb?: number } = {}): FailingDisk {
  if (process.getuid?.() !== 0) throw new Error('failingDisk needs root (mount -t tmpfs, mount -o loop): run the tests as root');
  const root = mkdtempSync(join(tmpdir(), 'pf-disk-'));
  const backing = join(root, 'back');
  const dir = join(root, 'mnt');
  mkdirSync(backing);
  mkdirSync(dir);
  const undo: Array<() => void> = [];
  const dispose = () => {
    for (const f of undo.reverse()) {
      try {
        f();
      } catch {
        // Keep undoing the rest.
      }
    }
    undo.length = 0;
    try {
      rmSync(root, { recursive: true, force: true });
    } catch {
      // Still mounted (a file on it open in this process): the lazy unmounts finish when it closes.
    }
  };
  // A file still open on it (in this process) makes a plain unmount fail: detach it lazily then.
  const unmount = (path: string) => {
    try {
      run('umount', [path]);
    } catch {
      run('umount', ['-l', path]);
    }
  };
  try {
    run('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', backing]);
    undo.push(() => unmount(backing));
    const image = join(backing, 'disk.img');
    run('truncate', ['-s', `${o.imageMb ?? 64}M`, image]);
    // No journal: only the data's write-back can fail (the metadata blocks exist from mkfs).
    run('mkfs.ext4', ['-q', '-F', '-O', '^has_journal', image]);
    // mount -o loop sets the loop device up to detach itself when unmounted (autoclear).
    const mount = () => run('mount', ['-o', 'loop', image, dir]);
    mount();
    undo.push(() => unmount(dir));
    return {
      dir,
      backing,
      fill: () => fillBacking(backing),
      free: () => freeBacking(backing),
      remount() {
        run('umount', [dir]);
        mount();
      },
      dispose,
    };
  } catch (e) {
    dispose();
    throw new Error(`failingDisk: could not set up a loop-device ext4 (root, /dev/loop*, mkfs.ext4 needed): ${String(e)}`);
  }
}
