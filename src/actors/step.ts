// One lifecycle move computed from the intent's row, with XState's pure `transition()`: no
// long-lived actor, nothing in memory that could be ahead of (or behind) the database. The row's
// persisted snapshot is restored into an actor that is never started (no side effect runs), and
// the named `emit` actions come back as data, in the order the machine lists them.
import { createActor, transition, type SnapshotFrom } from 'xstate';
import type { EventType, IntentState } from '../domain/intent';
import type { StoredIntent } from '../store/intents';
import { intentMachine, MACHINE_VERSION, type IntentContext, type IntentEvent } from '../../machines/intent.machine';

export type IntentSnapshot = SnapshotFrom<typeof intentMachine>;

/** A webhook event the move emitted, with what the machine says it reports. */
export interface Emitted {
  type: EventType;
  /** Set when the move went past the state this event reports (machines/intent.machine.ts `emit`). */
  reports?: IntentState;
  /** The lifecycle fields as the machine had them at this emit (its assigns run in order). */
  context: IntentContext;
}

export interface Step {
  snapshot: IntentSnapshot;
  /** The persisted form, as stored in the row's `snapshot` column. */
  json: string;
  emitted: Emitted[];
}

const familyOf = (chain: string) => (chain.startsWith('solana:') ? ('solana' as const) : ('evm' as const));

/**
 * Restored snapshots by intent id, each with the exact persisted JSON it came from. A hit needs
 * the row's snapshot text to be identical, so the cache can never stand for another state than
 * the row's: a rolled-back write or another process's write simply misses.
 */
const restored = new Map<string, { json: string; snapshot: IntentSnapshot }>();
const CACHE_LIMIT = 10_000;

function remember(id: string, json: string, snapshot: IntentSnapshot): void {
  if (restored.size >= CACHE_LIMIT) restored.clear();
  restored.set(id, { json, snapshot });
}

/** The machine's state for this row (version-checked). */
export function snapshotOf(row: Pick<StoredIntent, 'id' | 'chain' | 'snapshot' | 'machineVersion'>): IntentSnapshot {
  const hit = restored.get(row.id);
  if (hit && hit.json === row.snapshot) return hit.snapshot;
  if (row.machineVersion !== MACHINE_VERSION) {
    throw new Error(`intent ${row.id}: snapshot of machine version ${row.machineVersion}, this build runs ${MACHINE_VERSION}`);
  }
  // Never started: restoring creates the invoked children's refs but runs none of them.
  const snapshot = createActor(intentMachine, {
    id: row.id,
    snapshot: JSON.parse(row.snapshot),
    input: { intentId: row.id, family: familyOf(row.chain) },
  }).getSnapshot();
  remember(row.id, row.snapshot, snapshot);
  return snapshot;
}

/**
 * The persisted snapshot of a new intent (state `created`). It is the same for every intent of a
 * family but for its id, so it is made once per family and the id put in (ids are base62 with a
 * prefix: nothing to escape). test/actors/step.test.ts holds it equal to a fresh actor's.
 */
export function initialSnapshotJson(id: string, chain: string): string {
  return initialTemplate(familyOf(chain)).join(id);
}

const PLACEHOLDER = 'pi_0template0placeholder0';
// The template already cut at its placeholder: a create only joins the pieces around its id.
const templates = new Map<'solana' | 'evm', string[]>();
function initialTemplate(family: 'solana' | 'evm'): string[] {
  let t = templates.get(family);
  if (t === undefined) {
    const snapshot = createActor(intentMachine, { id: PLACEHOLDER, input: { intentId: PLACEHOLDER, family } }).getSnapshot();
    t = JSON.stringify(intentMachine.getPersistedSnapshot(snapshot)).split(PLACEHOLDER);
    templates.set(family, t);
  }
  return t;
}

/** The move `event` makes from the row's state, or null when the machine refuses it. */
export function step(row: StoredIntent, event: IntentEvent): Step | null {
  const from = snapshotOf(row);
  if (!from.can(event)) return null;
  const [snapshot, actions] = transition(intentMachine, from, event);
  const emitted: Emitted[] = [];
  for (const a of actions) {
    if (a.type !== 'emit') continue;
    const { type, reports } = a.params as { type: EventType; reports?: IntentState };
    emitted.push({ type, reports, context: a.info.context as IntentContext });
  }
  const json = JSON.stringify(intentMachine.getPersistedSnapshot(snapshot));
  remember(row.id, json, snapshot);
  return { snapshot, json, emitted };
}

/** Which chain watch the machine asks for in this state (its `watchChain` invocation), if any. */
export function watchStageOf(row: Pick<StoredIntent, 'snapshot'>): 'pending' | 'confirmed' | null {
  const persisted = JSON.parse(row.snapshot) as { children?: Record<string, { src?: string; snapshot?: { input?: { stage?: string } } }> };
  for (const child of Object.values(persisted.children ?? {})) {
    const stage = child.src === 'watchChain' ? child.snapshot?.input?.stage : undefined;
    if (stage === 'pending' || stage === 'confirmed') return stage;
  }
  return null;
}

export function forget(id: string): void {
  restored.delete(id);
}
