// The intent writer (src/store/intent-writes.ts, intent-writer.ts): creates written as data on a
// thread of their own, many per transaction, each in its savepoint. On a real SQLite file with the
// real migrations and a real Worker: a create that fails rolls back only itself, a stored
// idempotency response is answered instead of a second intent, the thread takes the shared write
// turn (it waits while the event loop's side holds it) and keeps off while the checkpointer holds
// writes; the event loop's wait for the turn never blocks it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { iso, toWire } from '../../src/domain/intent';
import { newId } from '../../src/domain/ids';
import { createIntentWrites, intentRowValues, type NewIntentWrite } from '../../src/store/intent-writes';
import { IntentWriteError, startIntentWriter, type IntentWriter } from '../../src/store/intent-writer';
import type { StoredIntent } from '../../src/store/intents';
import { createWriteGate, type WriteGate } from '../../src/store/write-gate';
import { storedIntent, tempDb, type TempDb } from '../support/db';
import { createAccount, putEndpoint } from '../webhooks/factory';

let t: TempDb;
let account: string;

beforeEach(() => {
  t = tempDb();
  account = createAccount(t.db);
  putEndpoint(t.db, { accountId: account, mode: 'test', url: 'https://hooks.example.com/x' });
});
afterEach(() => t.dispose());

function write(over: Partial<StoredIntent> = {}, key: string | null = null): NewIntentWrite & { id: string } {
  const row = storedIntent({ accountId: account, idempotencyKey: key, ...over });
  const now = Date.now();
  return {
    id: row.id,
    row: intentRowValues(row),
    event: {
      envelope: { eventId: newId('evt'), type: 'intent.created', createdAt: iso(now), livemode: false, data: { intent: toWire(row) } },
      accountId: account,
      mode: 'test',
      intentId: row.id,
      createdAt: now,
    },
    idempotency: key === null ? null : { accountId: account, mode: 'test', key, response: { requestHash: 'h', responseStatus: 201, responseBody: JSON.stringify({ id: row.id }) }, now, ttlSeconds: 3600 },
  };
}

const count = (sql: string, ...args: string[]) => (t.db.sqlite.query(sql).get(...(args as never[])) as { n: number }).n;
/** The intent, its intent.created event and its delivery, as stored. */
const storedOf = (id: string) => [
  count('SELECT count(*) AS n FROM intents WHERE id = ?', id),
  count("SELECT count(*) AS n FROM events WHERE intent_id = ? AND type = 'intent.created'", id),
  count('SELECT count(*) AS n FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.intent_id = ?', id),
];

const settledYet = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  return done;
};

describe('one transaction of creates', () => {
  it('rolls back only the create that fails; the others commit with their event and delivery', () => {
    const w = createIntentWrites(t.db.sqlite);
    const a = write();
    const dup = write({ id: a.id });
    const c = write();
    const out = w.run([a, dup, c]);
    expect(out[0]).toEqual({ kind: 'created', queued: true });
    expect(out[1]).toMatchObject({ kind: 'failed', code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(out[2]).toEqual({ kind: 'created', queued: true });
    expect(storedOf(a.id)).toEqual([1, 1, 1]);
    expect(storedOf(c.id)).toEqual([1, 1, 1]);
    // The duplicate's event (its own id) was rolled back with it.
    expect(count('SELECT count(*) AS n FROM events WHERE id = ?', dup.event.envelope.eventId)).toBe(0);
  });

  it('answers a stored idempotency response instead of writing a second intent', () => {
    const w = createIntentWrites(t.db.sqlite);
    const first = write({}, 'k1');
    const second = write({}, 'k1');
    const out = w.run([first, second]);
    expect(out[0]).toEqual({ kind: 'created', queued: true });
    expect(out[1]).toEqual({ kind: 'replay', stored: { requestHash: 'h', responseStatus: 201, responseBody: JSON.stringify({ id: first.id }) } });
    expect(count("SELECT count(*) AS n FROM intents WHERE idempotency_key = 'k1'")).toBe(1);
    expect(storedOf(second.id)).toEqual([0, 0, 0]);
  });

  it('queues no delivery for an account without an endpoint', () => {
    const other = createAccount(t.db);
    const x = write({ accountId: other });
    x.event.accountId = other;
    expect(createIntentWrites(t.db.sqlite).run([x])).toEqual([{ kind: 'created', queued: false }]);
  });
});

describe('the writer thread', () => {
  let gate: WriteGate;
  let writer: IntentWriter;
  beforeEach(async () => {
    gate = createWriteGate();
    writer = startIntentWriter({ db: t.path, gate: gate.buffer, log: () => {} });
    await writer.ready();
  });
  afterEach(async () => {
    await writer.stop();
  });

  it('writes the creates of a turn together and answers each; a failing one rejects alone', async () => {
    expect(writer.usable()).toBe(true);
    const a = write();
    const ws = [a, write({ id: a.id }), write(), write()];
    const answers = await Promise.allSettled(ws.map((w) => writer.create(w)));
    expect(answers[0]).toEqual({ status: 'fulfilled', value: { kind: 'created', queued: true } });
    expect(answers[1]!.status).toBe('rejected');
    expect((answers[1] as PromiseRejectedResult).reason).toBeInstanceOf(IntentWriteError);
    expect((answers[1] as PromiseRejectedResult).reason.code).toBe('SQLITE_CONSTRAINT_UNIQUE');
    for (const i of [2, 3]) expect(answers[i]).toEqual({ status: 'fulfilled', value: { kind: 'created', queued: true } });
    for (const w of [ws[0]!, ws[2]!, ws[3]!]) expect(storedOf(w.id)).toEqual([1, 1, 1]);
    // One transaction for the four (sent in one message, drained at once).
    expect(writer.stats()).toEqual({ batches: 1, writes: 3 });
  });

  it('waits for the write turn held elsewhere, and for the checkpointer hold, before it writes', async () => {
    const turn = gate.enter(0);
    expect(turn.taken).toBe(true);
    const w = write();
    const p = writer.create(w);
    await Bun.sleep(200);
    expect(await settledYet(p)).toBe(false);
    expect(storedOf(w.id)).toEqual([0, 0, 0]);
    gate.leave();
    await p;
    expect(storedOf(w.id)).toEqual([1, 1, 1]);

    gate.hold(true);
    const w2 = write();
    const p2 = writer.create(w2);
    await Bun.sleep(200);
    expect(await settledYet(p2)).toBe(false);
    gate.hold(false);
    await p2;
    expect(storedOf(w2.id)).toEqual([1, 1, 1]);
  });

  it("the event loop's wait for the turn does not block it, and it goes before the thread's next transaction", async () => {
    const turn = gate.enter(0);
    expect(turn.taken).toBe(true);
    const waited = gate.enterAsync(5_000);
    expect(waited).toBeInstanceOf(Promise);
    // The event loop still turns while it waits.
    expect(await settledYet(waited as Promise<unknown>)).toBe(false);
    // The thread queues behind it: its create is written only after the event loop's turn is over.
    const w = write();
    const p = writer.create(w);
    await Bun.sleep(50);
    gate.leave();
    const mine = await waited;
    expect(mine.taken).toBe(true);
    await Bun.sleep(100);
    expect(await settledYet(p)).toBe(false);
    expect(storedOf(w.id)).toEqual([0, 0, 0]);
    gate.leave();
    await p;
    expect(storedOf(w.id)).toEqual([1, 1, 1]);
  });

  it("writes and acknowledges nothing once the server's committer found the disk refusing (gate failed)", async () => {
    await writer.create(write());
    // The committer's failed WAL sync, or the checkpointer's failed database sync (commit-sync.ts refuse).
    gate.failed();
    const w = write();
    await expect(writer.create(w)).rejects.toThrow('could not make its commits durable');
    expect(storedOf(w.id)).toEqual([0, 0, 0]);
  });
});

describe('the writer thread stopping', () => {
  it('a create handed over while it stops is answered either way, never written unanswered; it is no longer usable', async () => {
    const gate = createWriteGate();
    const writer = startIntentWriter({ db: t.path, gate: gate.buffer, log: () => {} });
    await writer.ready();
    const before = write();
    const first = writer.create(before);
    const stopping = writer.stop();
    // From here on the runtime must write creates on the event loop's path instead.
    expect(writer.usable()).toBe(false);
    const late = write();
    const answer = writer.create(late).then(
      (v) => ({ ok: true as const, v }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    await stopping;
    expect(await first).toEqual({ kind: 'created', queued: true });
    expect(storedOf(before.id)).toEqual([1, 1, 1]);
    // Settles (a promise left pending here would hang a request and the vitest timeout fails it).
    const a = await answer;
    // Answered as written, or rejected and not written: never a row nobody was told about.
    if (a.ok) expect(storedOf(late.id)).toEqual([1, 1, 1]);
    else expect(storedOf(late.id)).toEqual([0, 0, 0]);
  });
});
