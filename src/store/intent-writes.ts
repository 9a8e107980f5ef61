// The SQL of a create, as the intent writer thread runs it (src/store/intent-writer-worker.ts) on
// its own connection: the intent row, its intent.created event and delivery (the outbox's
// statements), and with an idempotency key the look-up of a stored response and the store of
// this one. Many creates share one transaction (group commit), each in its own savepoint, so a
// create that fails rolls back only itself; the answers come back in order.
import type { Database } from 'bun:sqlite';
import type { Mode } from '../domain/intent';
import { createIdempotencyRepo, type StoredResponse } from './idempotency';
import { INTENT_COLUMNS, intentToRow, sqliteFlag, type StoredIntent } from './intent-row';

/** A new row's values for NewIntentWrite.row (booleans as SQLite's 0/1). */
export const intentRowValues = (i: StoredIntent): unknown[] => intentToRow(i, sqliteFlag);
import { createOutbox, type OutboxEvent } from './outbox';

/**
 * One create, as data (the event loop built it; here it is only written). Plain JSON: a batch
 * crosses to the thread as one JSON string (a structured clone of the same objects cost the event
 * loop ~3x as much: 13.5 against 4.3 µs per create).
 */
export interface NewIntentWrite {
  /** The new row (in `created`, with its initial snapshot), its values in INTENT_COLUMNS order (intentRowValues). */
  row: unknown[];
  /** Its intent.created event (and, with an endpoint, its delivery). */
  event: OutboxEvent;
  /** With an idempotency key: answer a stored response of it instead, else store `response` with the intent. */
  idempotency: { accountId: string; mode: Mode; key: string; response: StoredResponse; now: number; ttlSeconds: number } | null;
}

export type NewIntentOutcome =
  /** Committed; `queued`: a delivery row was written (wake the dispatcher). */
  | { kind: 'created'; queued: boolean }
  /** The key already holds a response (nothing written): answer that one. */
  | { kind: 'replay'; stored: StoredResponse }
  /** Another transaction stored the key between the look-up and the store (this create rolled back). */
  | { kind: 'elsewhere' }
  /** This create failed (rolled back to its savepoint) or its batch did not commit. */
  | { kind: 'failed'; error: string; code: string | null };

export const failedOutcome = (e: unknown): NewIntentOutcome => ({
  kind: 'failed',
  error: e instanceof Error ? e.message : String(e),
  code: (e as { code?: unknown } | null)?.code === undefined ? null : String((e as { code: unknown }).code),
});

export interface IntentWrites {
  /**
   * One transaction: BEGIN IMMEDIATE, each create in its savepoint, COMMIT. Throws (nothing of
   * the batch committed, rolled back) only when BEGIN or COMMIT fails.
   */
  run(batch: readonly NewIntentWrite[]): NewIntentOutcome[];
}

export function createIntentWrites(sqlite: Database): IntentWrites {
  const begin = sqlite.prepare('BEGIN IMMEDIATE');
  const commit = sqlite.prepare('COMMIT');
  const rollback = sqlite.prepare('ROLLBACK');
  const savepoint = sqlite.prepare('SAVEPOINT c');
  const release = sqlite.prepare('RELEASE c');
  const rollbackTo = sqlite.prepare('ROLLBACK TO c');
  const insert = sqlite.prepare(`INSERT INTO intents (${INTENT_COLUMNS.join(', ')}) VALUES (${INTENT_COLUMNS.map(() => '?').join(', ')})`);
  const outbox = createOutbox(sqlite);
  const idempotency = createIdempotencyRepo(sqlite);

  function undo(): void {
    rollbackTo.run();
    release.run();
  }

  function one(w: NewIntentWrite): NewIntentOutcome {
    savepoint.run();
    try {
      const k = w.idempotency;
      if (k) {
        const stored = idempotency.get(k.accountId, k.mode, k.key, k.now);
        if (stored) {
          release.run();
          return { kind: 'replay', stored };
        }
      }
      insert.run(...(w.row as never[]));
      const queued = outbox.append(w.event);
      if (k && !idempotency.put(k.accountId, k.mode, k.key, k.response, k.now, k.ttlSeconds)) {
        undo();
        return { kind: 'elsewhere' };
      }
      release.run();
      return { kind: 'created', queued };
    } catch (e) {
      undo();
      return failedOutcome(e);
    }
  }

  return {
    run(batch) {
      begin.run();
      const out = batch.map(one);
      try {
        commit.run();
      } catch (e) {
        try {
          rollback.run();
        } catch {
          /* already rolled back by SQLite */
        }
        throw e;
      }
      return out;
    },
  };
}
