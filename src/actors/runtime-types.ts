// The runtime's interfaces (src/actors/runtime.ts implements them): what it needs (RuntimeDeps),
// what write functions are handed (Tx), what create() takes and answers, and the Runtime itself.
import type { InspectionEvent } from 'xstate';
import type { EventEnvelope, EventType, Mode, PaymentIntentWire } from '../domain/intent';
import type { Log } from '../log';
import type { Awaitable } from '../store/awaitable';
import type { StoredResponse } from '../store/idempotency';
import type { IntentWriter } from '../store/intent-writer';
import type { IntentRepo, StoredIntent } from '../store/intents';
import type { Store, StoreRepos } from '../store/store';
import type { IntentEvent } from '../../machines/intent.machine';
import type { WorkLeases } from './work-leases';

export interface RuntimeDeps {
  /** Store.transact: every write runs in it, its repositories bound to the transaction. */
  transact: Store['transact'];
  /**
   * Read outside any write (boot and the periodic scan): what the runtime follows of every live
   * intent, and the whole row of each one that holds a transaction (for the chain watch).
   */
  intents: Pick<IntentRepo, 'liveHeadsPage' | 'get'>;
  /**
   * Called after a commit that queued webhook deliveries, with their due time: the write's time,
   * taken before its COMMIT (the dispatcher's wake looks back to it, not only to its last look).
   */
  onDeliveriesQueued: (dueFrom: number) => void;
  /**
   * Rows as committed, after each commit; `full` on the periodic scan, which hands over every
   * live row that holds a transaction (anything watched but absent from it is no longer watched)
   * and `accounts`, the accounts of every live intent (gathered a page at a time as read). `newer(id)` is true for an intent whose
   * commit was handed over while the scan was reading: the scan's copy is older than what the
   * commit handed over, so it must neither replace it nor end its watch. A full hand-over may
   * return a promise (its user goes over 100k rows a chunk per turn): the scan waits for it, and
   * newer() keeps answering for commits handed over meanwhile.
   */
  onCommitted?: (rows: StoredIntent[], full: boolean, accounts?: ReadonlySet<string>, newer?: (intentId: string) => boolean) => void | Promise<void>;
  /** Stately inspector hook (serve --inspect): fed by display-only actors (inspect-mirror.ts). */
  inspect?: (event: InspectionEvent) => void;
  now?: () => number;
  /** True while a `sending` submission exists for the intent: its deadline waits (submit, B). Read inside the expiry's write. */
  holdExpiry?: (intentId: string, tx: StoreRepos) => Awaitable<boolean>;
  log?: Log;
  /** How often the live rows are read again to re-arm deadlines and watches (default 5 s). */
  resyncMs?: number;
  /**
   * SQLite: false when no other connection has committed since the previous call (the store's
   * changedElsewhere). The periodic scan then has nothing to learn (every row this process
   * committed was followed as it committed) and is skipped. Absent (PostgreSQL: other instances
   * write): every period scans.
   */
  changedElsewhere?: () => boolean;
  /**
   * Live work by lease (issue 12, src/actors/work-leases.ts): deadlines are armed, and rows handed
   * to onCommitted, only for intents of shards this instance holds, and an expiry's write is
   * fenced with its shard's lease. Absent, or null (before the instance joined, at boot): this
   * runtime follows every intent.
   */
  work?: () => Pick<WorkLeases, 'owner' | 'fenceForIntent'> | null;
  /**
   * SQLite under serve: the intent writer thread (src/store/intent-writer.ts), to which create()
   * hands the data of a new intent instead of writing it on the event loop; null while it is not
   * usable (then create() writes as every other write does).
   */
  writer?: () => Pick<IntentWriter, 'create' | 'usable'> | null;
}

/**
 * Handed to write functions: everything here joins the caller's transaction. A write function
 * awaits only these and `repos` (never network I/O: on SQLite the group committer's batch is open).
 */
export interface Tx {
  now: number;
  /** The repositories bound to this transaction: a verb writing submissions, payments... inside a write uses these. */
  repos: StoreRepos;
  /** The row as it is inside this write (locked for the rest of it on PostgreSQL). */
  get(id: string): Promise<StoredIntent | null>;
  /**
   * Insert a new intent in `created`, with its intent.created event. A plain value when the
   * repositories are synchronous (SQLite), so a create's write needs no promise; await it.
   * `intent` must be a new object of the caller's: it becomes the row (no copy is made).
   */
  insert(intent: Omit<StoredIntent, 'state' | 'snapshot' | 'machineVersion'>): StoredIntent | Promise<StoredIntent>;
  /**
   * Send a lifecycle event. The move is computed from the intent's row as it is now, inside this
   * write (`intent` only names it). When the machine refuses it: 'throw' raises 409
   * intent.invalid_state, 'ignore' returns null (chain reports and deadlines that no longer apply).
   */
  apply(intent: StoredIntent, event: IntentEvent, onReject: 'throw' | 'ignore', patch?: Partial<StoredIntent>): Promise<StoredIntent | null>;
  /** Change fields that are not lifecycle (reference, metadata, fulfiller, refundedBy): no event. */
  patch(intent: StoredIntent, fields: Partial<StoredIntent>): Promise<StoredIntent>;
  /** Record an event that is no lifecycle move (intent.late_payment, payment.unmatched) through the outbox. */
  event(e: { type: EventType; accountId: string; mode: Mode; intentId: string | null; data: EventEnvelope['data'] }): Promise<void>;
}

/** A new intent, as create() takes it. */
export interface NewIntent {
  /** Its fields, with the write's time (ids, expiry and timestamps follow from it). */
  fields(now: number): Omit<StoredIntent, 'state' | 'snapshot' | 'machineVersion'>;
  /**
   * With an idempotency key: a response already stored for it is returned instead (nothing
   * written); else `response(intent)` is stored with the intent, in its transaction.
   */
  idempotency: { accountId: string; mode: Mode; key: string; ttlSeconds: number; response(intent: StoredIntent): StoredResponse } | null;
  /** The intent's wire form, when the caller renders it anyway (its answer): the event shows the same object. */
  wire?(intent: StoredIntent): PaymentIntentWire;
}

export type NewIntentResult =
  | { intent: StoredIntent }
  | { replay: StoredResponse }
  /** Another transaction stored the key between the look-up and this write, which rolled back. */
  | { committedElsewhere: true };

export interface Runtime {
  /**
   * `fn` may answer synchronously (what it calls on SQLite is): its write then costs no promise in
   * the batch. `opts`: Store.transact's (savepoint: false for a write that cannot fail half-way but
   * by the database failing).
   */
  write<T>(fn: (tx: Tx) => T | Promise<T>, opts?: Parameters<Store['transact']>[1]): Promise<T>;
  /**
   * Insert a new intent in `created` with its intent.created event (and delivery), and its
   * idempotency response: on the intent writer thread when there is one, else as write() does.
   */
  create(n: NewIntent): Promise<NewIntentResult>;
  /** Boot: read the live rows, arm their deadlines and watches, start the periodic scan. Returns how many. */
  rehydrateLive(): Promise<number>;
  /** Read the live rows again and follow what they say (also run periodically). Returns how many. */
  resync(): Promise<number>;
  /** Live intents this runtime follows (deadline or chain watch). */
  liveIntents(): number;
  /**
   * Stop following these intents (their shard's lease is gone); onCommitted's user drops them
   * itself. A chunk of the live intents per turn of the event loop: `gone` is asked when the pass
   * reaches an intent, so it must answer for that moment (a shard taken back meanwhile: not gone).
   * Until then a due deadline of one finds its shard's fence gone and writes nothing.
   */
  dropWhere(gone: (intentId: string) => boolean): Promise<void>;
  stop(): void;
}
