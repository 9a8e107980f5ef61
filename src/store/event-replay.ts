// Replaying events to an endpoint: events written while an account had no endpoint (or while
// it pointed elsewhere) are never delivered on their own; `payforge webhooks replay --since`
// and `payforge listen --since` queue one new delivery per event, oldest first.
import { newId } from '../domain/ids';
import type { Mode } from '../domain/intent';
import type { Db } from './db';

export interface ReplayInput {
  accountId: string;
  mode: Mode;
  /** Epoch ms: events created at or after this. */
  since: number;
  url: string;
  now: number;
}

/** Queue a delivery of every event since `since` to `url`; returns how many were queued. */
export function queueReplay(db: Db, input: ReplayInput): number {
  const sqlite = db.sqlite;
  const events = sqlite.prepare<{ id: string }, [string, string, number]>(
    'SELECT id FROM events WHERE account_id = ? AND mode = ? AND created_at >= ? ORDER BY seq',
  );
  const insert = sqlite.prepare(
    `INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
  );
  return sqlite
    .transaction(() => {
      const ids = events.all(input.accountId, input.mode, input.since);
      for (const { id } of ids) insert.run(newId('whd'), id, input.accountId, input.mode, input.url, input.now, input.now);
      return ids.length;
    })
    .immediate();
}
