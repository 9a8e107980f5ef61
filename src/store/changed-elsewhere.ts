// Whether intents were written by anyone but this process's group committer since the last look.
// The database keeps two marks that every connection moves (a CLI command, another process, an
// older binary, this process's intent writer thread): the highest intent seq, which any INSERT
// raises (the rowid without AUTOINCREMENT: max + 1, and no intent row is ever deleted), and a count
// of intent UPDATEs and DELETEs (migration 0011: triggers on `intents` bump `intent_writes.n`; the
// INSERT trigger went in 0017: it cost every create an UPDATE and a statement journal). Each batch
// of the group committer reads both right after its BEGIN IMMEDIATE (it holds the write lock, so
// nothing else commits until its COMMIT) and right before its COMMIT: marks at BEGIN other than the
// ones this process last left mean someone else wrote intents in between; marks at a look other
// than the ones last left, the same since the last batch. Committed marks only grow, so `left`
// (marks one of our commits or looks produced) can equal the marks now only if no other connection
// wrote intents after it.
//
// (It was `PRAGMA data_version`, which changes on any other connection's commit: the webhook
// dispatcher's thread commits all the time under load, so the scan of every live intent ran every
// period for nothing. Commits that write no intent, the dispatcher's, leave the marks alone.)
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
  // Both marks in one string ("count:seq"): two index seeks, twice per batch.
  const marks = sqlite.prepare<{ m: string }, []>(
    "SELECT n || ':' || coalesce((SELECT max(seq) FROM intents), 0) AS m FROM intent_writes WHERE k = 0",
  );
  const read = () => marks.get()?.m ?? '';
  // The marks as this process last left them, whether a batch found them moved since (the first
  // look reports a change whatever they are), and the marks the open batch leaves if its COMMIT succeeds.
  let left = '';
  let moved = true;
  let leaving = '';
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
