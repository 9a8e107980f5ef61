// A disk whose writes really fail, for the durability tests (no mock, no fault injection in the
// code under test): an ext4 on a zram block device (a compressed RAM disk of the kernel's own).
// fill() sets the device's memory limit below what it holds: from then on every write of a page
// the device must store fails in the device (-ENOMEM -> an I/O error to ext4, the whole request
// failed), so write() still succeeds (the page cache takes it) and the following fsync/fdatasync
// fails (EIO), exactly as a dying disk; free() lifts the limit (a disk back after a transient
// fault). Linux reports a failed write-back once per open file: a later fsync returns clean, the
// pages never written (fsyncgate). remount() drops the page cache, so what is read back is what
// the disk got. (Pages of one repeated byte, zeros included, are stored without memory: they
// still write.)
//
// Not a loop device over a filling tmpfs (what this was first): the loop driver counts a SHORT
// write to its backing file as success (drivers/block/loop.c lo_complete_rq checks only reads), so
// a request that began in pages the tmpfs already had and ran into new ones was dropped past them
// with no error anywhere: fdatasync returned 0 and the data was gone (seen on kernel 6.18: 297 of
// 300 KB appended after the fill lost, fdatasync clean, nothing in dmesg).
//
// Needs root and zram (/sys/class/zram-control) and mkfs.ext4 (the CI machine runs as root, as the
// PostgreSQL and browser tests' installs do); fails, never skips, without them.
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FailingDisk {
  /** The mounted ext4's directory. */
  dir: string;
  /** The device under it (its sysfs directory): fillBacking / freeBacking take it, from another process too. */
  backing: string;
  fill(): void;
  free(): void;
  /** Unmount and mount again (every file on it must be closed): the page cache is dropped. */
  remount(): void;
  dispose(): void;
}

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

const isDevice = (backing: string) => backing.startsWith('/sys/block/zram');

/**
 * A zram device's sysfs directory: refuse every write it must store from now on (a one-page memory
 * limit, far below what it holds). A directory of a file system: fill it with a file until ENOSPC
 * (that file system is full: write() itself refused). Also usable from another process.
 */
export function fillBacking(backing: string): void {
  if (isDevice(backing)) {
    writeFileSync(join(backing, 'mem_limit'), '4096');
    return;
  }
  const fd = openSync(join(backing, 'fill'), 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    if ((e as { code?: string }).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
}

export function freeBacking(backing: string): void {
  if (isDevice(backing)) writeFileSync(join(backing, 'mem_limit'), '0');
  else unlinkSync(join(backing, 'fill'));
}

/**
 * `imageMb`: the ext4's size (64 by default: fill() makes write-backs fail long before it is full);
 * a small one (12) fills up itself when written to (write() refused with ENOSPC: a full disk,
 * nothing lost).
 */
export function failingDisk(o: { imageMb?: number } = {}): FailingDisk {
  if (process.getuid?.() !== 0) throw new Error('failingDisk needs root (zram, mkfs, mount): run the tests as root');
  const root = mkdtempSync(join(tmpdir(), 'pf-disk-'));
  const dir = root;
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
      // Still mounted (a file on it open in this process): the lazy unmount finishes when it closes.
    }
  };
  try {
    const id = readFileSync('/sys/class/zram-control/hot_add', 'utf8').trim();
    const backing = `/sys/block/zram${id}`;
    const device = `/dev/zram${id}`;
    undo.push(() => {
      // The device goes once nothing holds it (a lazily unmounted ext4 still does: then it stays, empty of use).
      writeFileSync(join(backing, 'reset'), '1');
      writeFileSync('/sys/class/zram-control/hot_remove', id);
    });
    writeFileSync(join(backing, 'disksize'), `${o.imageMb ?? 64}M`);
    for (let i = 0; i < 100 && !existsSync(device); i++) run('sleep', ['0.01']);
    // No journal: only the data's write-back fails the file's fsync (as a journal's own would).
    run('mkfs.ext4', ['-q', '-F', '-O', '^has_journal', device]);
    const mount = () => run('mount', [device, dir]);
    mount();
    // A file still open on it (in this process) makes a plain unmount fail: detach it lazily then.
    undo.push(() => {
      writeFileSync(join(backing, 'mem_limit'), '0');
      try {
        run('umount', [dir]);
      } catch {
        run('umount', ['-l', dir]);
      }
    });
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
    throw new Error(`failingDisk: could not set up an ext4 on zram (root, /sys/class/zram-control, mkfs.ext4 needed): ${String(e)}`);
  }
}
