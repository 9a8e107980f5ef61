// The PostgreSQL store: every repository on the pool, and transact(fn) handing fn the same
// repositories bound to one transaction (one pooled connection, BEGIN..COMMIT). What is per store
// rather than per transaction (the live feed's horizon, in-flight slots) is made once here.
import type { SQL } from 'bun';
import type { DetectionStates } from '../detection';
import { createPgAccountRepo } from './accounts';
import { createPgApiKeyRepo } from './api-keys';
import { createPgDetectionRepo } from './detection';
import { createPgEventRepo } from './events';
import { pgClaimSlots } from './claims';
import { createPgIdempotencyRepo, type IdempotencySlots } from './idempotency';
import { createPgIntentRepo } from './intents';
import { createKeptIntentCounts, createPgIntentsOverviewRepo, type KeptIntentCounts } from './intents-overview';
import { createEndedCounts, type EndedCounts } from '../ended-counts';
import { createPgLiveEventRepo, createSeqHorizon, type SeqHorizon } from './live-events';
import { guardUnavailable, openPg, pingWithin, unavailableAs } from './connect';
import { createPgOutbox } from './outbox';
import { createPgPaymentRepo } from './payments';
import { type Pg, sqlState } from './sql';
import { createPgLeaseStore } from './leases';
import { type BroadcastSlots, createPgSubmissionRepo } from './submissions';
import { createPgDeliveryRepo } from './webhook-deliveries';
import { createPgDispatchStore } from './webhook-dispatch';
import { createPgWebhookEndpointRepo } from './webhook-endpoints';

/** What is shared by the pool's repositories and every transaction's. */
export interface PgShared {
  pool: Pg;
  states: DetectionStates;
  horizon: SeqHorizon;
  /** The live view's kept counts of ended intents (ended-counts.ts): one per store. */
  endedCounts: EndedCounts;
  /** The accounts page's kept counts of intents (intents-overview.ts): one per store. */
  intentCounts: KeptIntentCounts;
  idempotencySlots: IdempotencySlots;
  broadcastSlots: BroadcastSlots;
}

/** Every repository on one query handle (the pool, or one transaction). */
export function pgReposOn(q: Pg, s: PgShared) {
  return {
    intents: createPgIntentRepo(q, { live: s.states.live }),
    idempotency: createPgIdempotencyRepo(q, s.idempotencySlots),
    payments: createPgPaymentRepo(q),
    detection: createPgDetectionRepo(q, s.states),
    submissions: createPgSubmissionRepo(q, s.broadcastSlots),
    outbox: createPgOutbox(q),
    accounts: createPgAccountRepo(q),
    apiKeys: createPgApiKeyRepo(q),
    endpoints: createPgWebhookEndpointRepo(q),
    deliveries: createPgDeliveryRepo(q),
    events: createPgEventRepo(q),
    liveEvents: createPgLiveEventRepo(q, s.pool, s.horizon, s.states.live, s.endedCounts),
    intentsOverview: createPgIntentsOverviewRepo(q, s.horizon, s.intentCounts),
    dispatch: createPgDispatchStore(q),
    leases: createPgLeaseStore(q),
  };
}

export type PgStoreRepos = ReturnType<typeof pgReposOn>;

export interface PgStore {
  engine: 'postgres';
  repos: PgStoreRepos;
  /**
   * fn in one transaction (READ COMMITTED; getForUpdate locks what it reads). A serialization
   * failure or a deadlock (40001, 40P01) rolls it back and runs fn again, a few times: fn must
   * only touch its repositories (no I/O outside the database), so running it again is safe.
   */
  transact<T>(fn: (tx: PgStoreRepos) => T | Promise<T>): Promise<T>;
  /** Every commit is durable when it returns (synchronous_commit): nothing to wait for. */
  durable(): null;
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * SQLSTATEs after which the same transaction may well succeed when simply run again. 23505 too:
 * under READ COMMITTED two writes can both find a row absent (a transfer reported by two scans at
 * once) and both insert it; run again, the loser finds the winner's row, as it would have behind
 * SQLite's single writer. A unique violation that is no race fails the same way every attempt.
 */
const RETRYABLE = new Set(['40001', '40P01', '23505']);
const ATTEMPTS = 5;

export interface PgStoreOptions {
  states: DetectionStates;
  /** Pool size (connections per instance). */
  max?: number;
  /** This instance's id: the owner of the claims it takes. */
  instanceId?: string;
}

/** Wrap an open pool (migrated) as a Store. */
export function pgStoreOn(pool: SQL, opts: PgStoreOptions): PgStore {
  // In-flight guards are claims in the database (they hold across instances), taken on the pool.
  const claims = pgClaimSlots(pool, opts.instanceId);
  const shared: PgShared = {
    pool,
    states: opts.states,
    horizon: createSeqHorizon(pool),
    endedCounts: createEndedCounts(),
    intentCounts: createKeptIntentCounts(),
    idempotencySlots: claims.idempotency,
    broadcastSlots: claims.broadcast,
  };
  const repos = pgReposOn(pool, shared);
  // A lost or refused connection answers 503 store.unavailable (src/store/pg/connect.ts), never 500.
  for (const k of Object.keys(repos) as Array<keyof PgStoreRepos>) (repos as Record<string, unknown>)[k] = guardUnavailable(repos[k]);
  return {
    engine: 'postgres',
    repos,
    transact: (fn) =>
      unavailableAs(async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await pool.begin((tx) => fn(pgReposOn(tx as unknown as Pg, shared)));
          } catch (e) {
            const state = sqlState(e);
            if (state === null || !RETRYABLE.has(state) || attempt >= ATTEMPTS) throw e;
            // The other transaction holds on for a moment: a short random pause, growing.
            await Bun.sleep(Math.random() * 5 * attempt);
          }
        }
      }),
    durable: () => null,
    ping: () => pingWithin(pool),
    close: () => pool.close({ timeout: 5 }),
  };
}

/** Open `postgres://…` (src/store/pg/connect.ts), apply the embedded migrations, and build the Store on it. */
export async function openPgStore(url: string, opts: PgStoreOptions): Promise<PgStore> {
  const { sql } = await openPg(url, { poolSize: opts.max ?? 10 });
  return pgStoreOn(sql, opts);
}
