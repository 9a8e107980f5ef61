// Through the real server on SQLite: creates share a group-commit batch without savepoints of their
// own, so one whose write fails rolls its whole batch back. Its batch-mates must not pay for it:
// they run again in the next batch and answer 201; only the failing one fails. The failure is a
// real SQLite trigger refusing that create's event once its intent row is written.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rawSql, type RawSql } from '../support/raw-sql';
import { type ApiClient, intentBody, startServerWithKey, type TestServer } from '../support/server';

let s: TestServer;
let api: ApiClient;
let sql: RawSql;
beforeAll(async () => {
  ({ s, api } = await startServerWithKey());
  sql = rawSql(s.db);
  await sql.run(`CREATE TRIGGER refuse_event BEFORE INSERT ON events
    WHEN (SELECT reference FROM intents WHERE id = NEW.intent_id) = 'boom' BEGIN SELECT RAISE(ABORT, 'event refused'); END`);
});
afterAll(async () => {
  await sql.close();
  await s.stop();
});

it('one create whose write fails answers 500 alone; the creates sent with it all answer 201 and are stored with their events', async () => {
  // Sent at once: they reach the server in the same turns of its event loop, so batch-mates.
  const refs = Array.from({ length: 24 }, (_, i) => (i === 12 ? 'boom' : `mate-${i}`));
  const answers = await Promise.all(refs.map((reference) => api.post('/v1/intents', intentBody({ reference }))));
  const byRef = new Map(refs.map((r, i) => [r, answers[i]!]));
  expect(byRef.get('boom')!.status).toBe(500);
  const mates = refs.filter((r) => r !== 'boom');
  expect(mates.map((r) => byRef.get(r)!.status)).toEqual(mates.map(() => 201));
  // Each answered create is stored once with its intent.created event; nothing of the failed one.
  const rows = await sql.all<{ reference: string; events: number }>(
    "SELECT i.reference, (SELECT count(*) FROM events e WHERE e.intent_id = i.id AND e.type = 'intent.created') AS events FROM intents i",
  );
  expect(rows.map((r) => r.reference).sort()).toEqual([...mates].sort());
  expect(rows.every((r) => Number(r.events) === 1)).toBe(true);
  for (const r of mates) expect((await api.get(`/v1/intents/${byRef.get(r)!.body.intent.id}`)).body.intent.reference).toBe(r);
});
