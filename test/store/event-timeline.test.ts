// An intent's event timeline (the dashboard's intent page) on a real SQLite file with the real
// migrations: each event's delivery counts, read through webhook_deliveries_event, never by
// reading every delivery row ever written (a page view would stall the event loop at scale).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids';
import { intentEventTimeline, TIMELINE_SQL } from '../../src/store/events';
import { tempDb, type TempDb } from '../support/db';

let t: TempDb;
beforeEach(() => {
  t = tempDb();
  t.db.sqlite.query("INSERT INTO accounts (id, name, plan, created_at) VALUES ('acct_a', 'a', 'pro', 1)").run();
});
afterEach(() => t.dispose());

function event(intentId: string, type: string, deliveries: string[]): string {
  const id = newId('evt');
  t.db.sqlite
    .query("INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at) VALUES (?, 'acct_a', 'test', ?, ?, '{}', 5)")
    .run(id, intentId, type);
  for (const status of deliveries) {
    t.db.sqlite
      .query(
        "INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, created_at) VALUES (?, ?, 'acct_a', 'test', 'https://x.example/h', ?, 1, 5, 5)",
      )
      .run(newId('whd'), id, status);
  }
  return id;
}

describe('intent event timeline (SQLite; PostgreSQL: test/store/pg/event-timeline.test.ts)', () => {
  it('counts each event\'s deliveries and the delivered ones, oldest event first, other intents apart', () => {
    const created = event('pi_a', 'intent.created', ['delivered', 'pending']);
    const cancelled = event('pi_a', 'intent.cancelled', ['failed']);
    event('pi_b', 'intent.created', ['delivered', 'delivered', 'delivered']);
    const rows = intentEventTimeline(t.db, 'pi_a');
    expect(rows.map((r) => [r.id, r.type, r.deliveries, r.delivered])).toEqual([
      [created, 'intent.created', 2, 1],
      [cancelled, 'intent.cancelled', 1, 0],
    ]);
  });

  it('finds each event\'s deliveries through webhook_deliveries_event, not by a scan of the table', () => {
    const plan = t.db.sqlite
      .query<{ detail: string }, [string]>(
        `EXPLAIN QUERY PLAN ${TIMELINE_SQL}`,
      )
      .all('pi_a')
      .map((r) => r.detail);
    const onDeliveries = plan.filter((d) => / d\b/.test(d) || d.includes('webhook_deliveries'));
    expect(onDeliveries).toHaveLength(2);
    for (const d of onDeliveries) expect(d).toMatch(/SEARCH d USING (COVERING )?INDEX webhook_deliveries_event \(event_id=\?\)/);
  });
});
