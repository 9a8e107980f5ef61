// Creates written on the intent writer thread (src/store/intent-writer.ts) are followed by the
// runtime once their COMMIT's answer is back on the event loop. The row is visible to the event
// loop's connection from the COMMIT on, so another write of the same intent (a cancel by id from
// a list read, a payment found for its receiver) can commit and be handed over before the
// create's own answer arrives: the create's copy of the row is then the older one and must not
// be followed over the newer (a closed intent would be followed as live again, its deadline
// re-armed, the chain watch handed a stale row). A real SQLite file, the real writer thread.
import { expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/actors/runtime';
import type { StoredIntent } from '../../src/store/intents';
import type { SqliteStore } from '../../src/store/store';
import { until } from '../support/core';
import { storedIntent } from '../support/db';
import { storeFiles } from '../support/store-files';

const stores = storeFiles('create-follow');
const open = (): SqliteStore => stores.open(stores.path(), { writerThread: true });

const followed = async (runtime: Runtime) => {
  const ids: string[] = [];
  await runtime.dropWhere((id) => (ids.push(id), false));
  return ids;
};

function fields(expiresIn: number) {
  return (now: number) => {
    const { state: _s, snapshot: _n, machineVersion: _m, ...f } = storedIntent({ createdAt: now, updatedAt: now, expiresAt: now + expiresIn });
    return f;
  };
}

it('a create is followed from its commit (its deadline fires), but not over a newer write of it handed over before its answer', async () => {
  const store = open();
  const writer = store.intentWriter!;
  await writer.ready();
  // Runs between the writer's COMMIT and the create's answer on the event loop (once).
  let between: ((id: string) => Promise<void>) | null = null;
  const runtime: Runtime = createRuntime({
    transact: (fn) => store.transact(fn),
    intents: { liveHeadsPage: (after, limit) => store.repos.intents.liveHeadsPage(after, limit), get: (id) => store.repos.intents.get(id) },
    onDeliveriesQueued: () => {},
    writer: () => ({
      usable: () => writer.usable(),
      create: async (w) => {
        const out = await writer.create(w);
        const run = between;
        between = null;
        if (run) await run(w.event.intentId!);
        return out;
      },
    }),
  });
  stores.later(() => runtime.stop());

  // Followed from the commit: its deadline (300 ms) fires and expires it; no scan runs here.
  const plain = await runtime.create({ fields: fields(300), idempotency: null });
  const id = (plain as { intent: StoredIntent }).intent.id;
  expect(await followed(runtime)).toContain(id);
  await until(async () => (await store.repos.intents.get(id))?.state === 'expired', 'the deadline of a create written on the thread');
  // Its expiry is handed over once synced (the row is visible a little before).
  await until(async () => !(await followed(runtime)).includes(id), 'the expired intent unfollowed');

  // Canceled (committed and handed over) before the create's own answer is handed over.
  between = (cid) => runtime.write(async (tx) => tx.apply((await tx.get(cid))!, { type: 'CANCEL', at: tx.now }, 'throw')).then(() => {});
  const raced = await runtime.create({ fields: fields(300), idempotency: null });
  const rid = (raced as { intent: StoredIntent }).intent.id;
  expect((await store.repos.intents.get(rid))?.state).toBe('cancelled');
  expect(await followed(runtime)).not.toContain(rid);
});
