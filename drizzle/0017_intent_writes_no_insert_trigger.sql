-- An intent INSERT no longer bumps intent_writes (0011): an insert by any connection raises
-- max(intents.seq) (the rowid; no intent row is ever deleted, and a delete bumps the count anyway),
-- which src/store/changed-elsewhere.ts reads beside the count. The trigger cost every create an
-- UPDATE, and made its INSERT a "multi-write" statement, which SQLite runs with a statement journal:
-- each page the INSERT touched copied once more (~9k of a create's ~197k SQL instructions with the
-- group committer's savepoint per write, ~40k without it). UPDATE and DELETE keep their triggers.
DROP TRIGGER `intent_writes_insert`;
