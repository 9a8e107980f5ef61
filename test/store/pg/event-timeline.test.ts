// An intent's event timeline on a real PostgreSQL with the real migrations: the delivery counts
// and the index they are read through (as test/store/event-timeline.test.ts on SQLite).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids';
import { intentEventTimeline, PG_TIMELINE_SQL } from '../../../src/store/pg/events';
import { type PgTestDb, pgTestDb } from './db';

let t: PgTestDb;
beforeEach(async () => {
  t = await pgTestDb();
  await t.sql`INSERT INTO accounts (id, name, plan, created_at) VALUES ('acct_a', 'a', 'pro', 1)`;
});
afterEach(() => t.dispose());

async function event(intentId: string, type: string, deliveries: string[]): Promise<string> {
  const id = newId('evt');
  await t.sql`INSERT INTO events (id, account_id, mode, intent_id, type, payload, created_at) VALUES (${id}, 'acct_a', 'test', ${intentId}, ${type}, '{}', 5)`;
  for (const status of deliveries) {
    await t.sql`INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, created_at)
      VALUES (${newId('whd')}, ${id}, 'acct_a', 'test', 'https://x.example/h', ${status}, 1, 5, 5)`;
  }
  return id;
}

describe('intent event timeline (PostgreSQL)', () => {
  it("counts each event's deliveries and the delivered ones, oldest event first, other intents apart", async () => {
    const created = await event('pi_a', 'intent.created', ['delivered', 'pending']);
    const cancelled = await event('pi_a', 'intent.cancelled', ['failed']);
    await event('pi_b', 'intent.created', ['delivered', 'delivered', 'delivered']);
    const rows = await intentEventTimeline(t.sql, 'pi_a');
    expect(rows.map((r) => [r.id, r.type, r.deliveries, r.delivered])).toEqual([
      [created, 'intent.created', 2, 1],
      [cancelled, 'intent.cancelled', 1, 0],
    ]);
  });

  it("reads each event's deliveries through webhook_deliveries_event once the table is real-sized", async () => {
    // 5,000 deliveries of other events, so the planner sees a table worth an index.
    await t.sql`INSERT INTO webhook_deliveries (id, event_id, account_id, mode, url, status, attempt_count, next_attempt_at, created_at)
      SELECT 'whd_' || g, 'evt_' || g, 'acct_a', 'test', 'https://x.example/h', 'delivered', 1, 5, 5 FROM generate_series(1, 5000) g`;
    await event('pi_a', 'intent.created', ['pending']);
    await t.sql`ANALYZE webhook_deliveries`;
    const plan = (await t.sql.unsafe(`EXPLAIN ${PG_TIMELINE_SQL}`, ['pi_a'])).map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    expect(plan).not.toMatch(/Seq Scan on webhook_deliveries/);
    expect(plan.match(/webhook_deliveries_event/g)).toHaveLength(2);
  });
});
