// Whether intents were written by anyone but this process's group committer since the last look.
// The database counts every intent row written, whoever writes it (migration 0011: triggers on
// `intents` bump `intent_writes.n`, on every connection: a CLI command, another process, an older
// binary, this process's intent writer thread). Each batch of the group committer reads the count
// right after its BEGIN IMMEDIATE (it holds the write lock, so nothing else commits until its
// COMMIT) and right before its COMMIT: a count at BEGIN other than the one this process last left
// means someone else wrote intents in between; a count at a look other than the one last left, the
// same since the last batch. Committed counts only grow, so `left` (a count one of our commits or
// looks produced) can equal the count now only if no other connection wrote intents after it.
//
// (It was `PRAGMA data_version`, which changes on any other connection's commit: the webhook
// dispatcher's thread commits all the time under load, so the scan of every live intent ran every
// period for nothing. Commits that write no intent, the dispatcher's, leave the count alone.)
import type { Database } from 'bun:sqlite';

export interface IntentWriteWatch {
  /** A probe: true on its first call and whenever intents were written elsewhere since the last call. */
  changedElsewhere(): boolean;
  /** The group committer: right after BEGIN IMMEDIATE. */
  began(): void;
  /** The group committer: right before COMMIT (inside the transaction, after its last write). */
  committing(): void;
  /** The group committer: its COMMIT succeeded. */
  committed(): void;
}

export function intentWriteWatch(sqlite: Database): IntentWriteWatch {
  const count = sqlite.prepare<{ n: number }, []>('SELECT n FROM intent_writes WHERE k = 0');
  const read = () => count.get()?.n ?? -1;
  // The count as this process last left it, whether a batch found it moved since (the first look
  // reports a change whatever the count), and the count the open batch leaves if its COMMIT succeeds.
  let left = -1;
  let moved = true;
  let leaving = 0;
  return {
    changedElsewhere() {
      const n = read();
      const changed = moved || n !== left;
      moved = false;
      left = n;
      return changed;
    },
    began() {
      if (read() !== left) moved = true;
    },
    committing() {
      leaving = read();
    },
    committed() {
      left = leaving;
    },
  };
}
