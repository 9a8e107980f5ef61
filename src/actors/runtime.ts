// The actor runtime: the only caller of createActor. One actor per live intent; every
// transition writes the intent row, the persisted snapshot, the events and their deliveries in
// ONE transaction (through the group committer). After commit: wake the dispatcher, re-arm
// deadlines, and drop terminal actors from memory.
import { createActor, fromCallback, type Actor, type InspectionEvent } from 'xstate';
import { newId } from '../domain/ids';
import { iso, toWire, type EventEnvelope, type EventType, type IntentState, type Mode } from '../domain/intent';
import type { GroupCommitter } from '../store/group-commit';
import type { IntentRepo, StoredIntent } from '../store/intents';
import type { Outbox } from '../store/outbox';
import { intentMachine, MACHINE_VERSION, type IntentContext, type IntentEvent } from '../../machines/intent.machine';
import { hasTag, invalidState } from '../../machines/judge';
import { createDeadlines, type Deadlines } from './deadlines';

type IntentActor = Actor<typeof intentMachine>;

export interface RuntimeDeps {
  committer: GroupCommitter;
  intents: IntentRepo;
  outbox: Outbox;
  /** Called after a commit that queued webhook deliveries. */
  onDeliveriesQueued: () => void;
  /** Called (after commit) when an actor enters or leaves a chain-watching state. */
  onWatch: (intentId: string, stage: 'pending' | 'confirmed' | null) => void;
  /** Stately inspector hook (serve --inspect). */
  inspect?: (event: InspectionEvent) => void;
  now?: () => number;
  /** True while a `sending` submission exists for the intent: its deadline waits (submit, B). */
  holdExpiry?: (intentId: string) => boolean;
}

const EXPIRY_HOLD_MS = 2_000;

/** Handed to write functions: everything here is synchronous and joins the caller's transaction. */
export interface Tx {
  now: number;
  get(id: string): StoredIntent | null;
  /** Insert a new intent in `created`, with its intent.created event. */
  insert(intent: Omit<StoredIntent, 'state' | 'snapshot' | 'machineVersion'>): StoredIntent;
  /**
   * Send a lifecycle event. When the machine refuses it: 'throw' raises 409 intent.invalid_state,
   * 'ignore' returns null (chain reports and deadlines that no longer apply).
   */
  apply(intent: StoredIntent, event: IntentEvent, onReject: 'throw' | 'ignore', patch?: Partial<StoredIntent>): StoredIntent | null;
  /** Change fields that are not lifecycle (reference, metadata, fulfiller, refundedBy): no event. */
  patch(intent: StoredIntent, fields: Partial<StoredIntent>): StoredIntent;
  /** Record an event that is no lifecycle move (intent.late_payment, payment.unmatched) through the outbox. */
  event(e: { type: EventType; accountId: string; mode: Mode; intentId: string | null; data: EventEnvelope['data'] }): void;
}

export interface Runtime {
  write<T>(fn: (tx: Tx) => T): Promise<T>;
  /** Rehydrate live intents and arm their deadlines (boot). Returns how many. */
  rehydrateLive(): number;
  liveActors(): number;
  stop(): void;
}


export function createRuntime(deps: RuntimeDeps): Runtime {
  const now = deps.now ?? Date.now;
  const actors = new Map<string, IntentActor>();
  let collector: EventType[] | null = null;

  const machine = intentMachine.provide({
    actions: {
      emit: (_args, params) => {
        if (!collector) throw new Error('emit outside a runtime transition');
        collector.push(params.type);
      },
    },
    actors: {
      watchChain: fromCallback(({ input }: { input: { intentId: string; stage: 'pending' | 'confirmed' } }) => {
        deps.onWatch(input.intentId, input.stage);
        return () => deps.onWatch(input.intentId, null);
      }),
    },
  });

  const deadlines: Deadlines = createDeadlines((intentId) => {
    void runtime
      .write((tx) => {
        const cur = tx.get(intentId);
        // A transaction for it is being broadcast (or was, before a crash): never expire it now;
        // look again shortly, once the submit or reconciliation has moved it to pending.
        if (cur && deps.holdExpiry?.(intentId)) {
          deadlines.arm(intentId, tx.now + EXPIRY_HOLD_MS);
          return null;
        }
        return cur ? tx.apply(cur, { type: 'EXPIRE', at: tx.now }, 'ignore') : null;
      })
      .catch((e) => console.error(JSON.stringify({ level: 'error', msg: 'expiry failed', intentId, error: String(e) })));
  }, now);

  function actorFor(i: StoredIntent): IntentActor {
    let a = actors.get(i.id);
    if (a) return a;
    if (i.machineVersion !== MACHINE_VERSION) {
      throw new Error(`intent ${i.id}: snapshot of machine version ${i.machineVersion}, this build runs ${MACHINE_VERSION}`);
    }
    a = createActor(machine, {
      id: i.id,
      snapshot: JSON.parse(i.snapshot),
      input: { intentId: i.id, family: i.chain.startsWith('solana:') ? 'solana' : 'evm' },
      inspect: deps.inspect,
    });
    actors.set(i.id, a);
    a.start();
    return a;
  }

  function evict(id: string): void {
    const a = actors.get(id);
    actors.delete(id);
    a?.stop();
  }

  function project(prev: StoredIntent, actor: IntentActor, at: number): StoredIntent {
    const snap = actor.getSnapshot();
    const c: IntentContext = snap.context;
    return {
      ...prev,
      state: snap.value as IntentState,
      txSignature: c.txSignature,
      retryRequired: c.retryRequired,
      pendingAtExpiry: c.pendingAtExpiry,
      failureReason: c.failureReason,
      detectedAt: c.detectedAt,
      confirmedAt: c.confirmedAt,
      finalizedAt: c.finalizedAt,
      // Strictly increasing: PATCH uses updatedAt for optimistic concurrency.
      updatedAt: Math.max(at, prev.updatedAt + 1),
      snapshot: JSON.stringify(actor.getPersistedSnapshot()),
      machineVersion: MACHINE_VERSION,
    };
  }

  function envelope(type: EventType, intent: StoredIntent, at: number): EventEnvelope {
    let shown = intent;
    // A poller that first sees a tx finalized emits confirmed then finalized: show each as it was.
    if (type === 'intent.confirmed' && intent.state === 'finalized') shown = { ...intent, state: 'confirmed', finalizedAt: null };
    return { eventId: newId('evt'), type, createdAt: iso(at), livemode: intent.mode === 'live', data: { intent: toWire(shown) } };
  }

  const runtime: Runtime = {
    write<T>(fn: (tx: Tx) => T): Promise<T> {
      const touched = new Map<string, StoredIntent>();
      let queued = false;
      const tx: Tx = {
        now: 0,
        get: (id) => touched.get(id) ?? deps.intents.get(id),
        insert(fields) {
          const a = createActor(machine, {
            id: fields.id,
            input: { intentId: fields.id, family: fields.chain.startsWith('solana:') ? 'solana' : 'evm' },
            inspect: deps.inspect,
          });
          actors.set(fields.id, a);
          a.start();
          const row: StoredIntent = {
            ...fields,
            state: 'created',
            snapshot: JSON.stringify(a.getPersistedSnapshot()),
            machineVersion: MACHINE_VERSION,
          };
          touched.set(row.id, row);
          deps.intents.insert(row);
          queued = deps.outbox.append({
            envelope: envelope('intent.created', row, tx.now), accountId: row.accountId, mode: row.mode, intentId: row.id, createdAt: tx.now,
          }) || queued;
          return row;
        },
        apply(cur, event, onReject, patch) {
          const actor = actorFor(cur);
          if (!actor.getSnapshot().can(event)) {
            if (hasTag(cur, 'terminal') && !touched.has(cur.id)) evict(cur.id);
            if (onReject === 'throw') throw invalidState(cur);
            return null;
          }
          collector = [];
          let emitted: EventType[];
          try {
            actor.send(event);
          } finally {
            emitted = collector;
            collector = null;
          }
          const next = { ...project(cur, actor, tx.now), ...patch };
          touched.set(next.id, next);
          deps.intents.update(next);
          for (const type of emitted) {
            queued = deps.outbox.append({
              envelope: envelope(type, next, tx.now), accountId: next.accountId, mode: next.mode, intentId: next.id, createdAt: tx.now,
            }) || queued;
          }
          return next;
        },
        patch(cur, fields) {
          const next = { ...cur, ...fields, updatedAt: Math.max(tx.now, cur.updatedAt + 1) };
          touched.set(next.id, next);
          deps.intents.update(next);
          return next;
        },
        event(e) {
          const envelope: EventEnvelope = { eventId: newId('evt'), type: e.type, createdAt: iso(tx.now), livemode: e.mode === 'live', data: e.data };
          queued = deps.outbox.append({ envelope, accountId: e.accountId, mode: e.mode, intentId: e.intentId, createdAt: tx.now }) || queued;
        },
      };
      const onAbort = () => {
        // The batch did not commit: actors may be ahead of the database; reload them lazily.
        for (const id of touched.keys()) evict(id);
      };
      return deps.committer
        .write(() => {
          tx.now = now();
          try {
            return fn(tx);
          } catch (e) {
            onAbort();
            throw e;
          }
        }, onAbort)
        .then((result) => {
          for (const i of touched.values()) {
            if (hasTag(i, 'terminal')) {
              deadlines.disarm(i.id);
              evict(i.id);
            } else if (hasTag(i, 'deadline') && !i.pendingAtExpiry) deadlines.arm(i.id, i.expiresAt);
            else deadlines.disarm(i.id);
          }
          if (queued) deps.onDeliveriesQueued();
          return result;
        });
    },
    rehydrateLive() {
      const live = deps.intents.listLive();
      for (const i of live) {
        actorFor(i);
        if (hasTag(i, 'deadline') && !i.pendingAtExpiry) deadlines.arm(i.id, i.expiresAt);
      }
      return live.length;
    },
    liveActors: () => actors.size,
    stop() {
      deadlines.stop();
      for (const id of [...actors.keys()]) evict(id);
    },
  };
  return runtime;
}
