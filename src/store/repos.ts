// The repositories handed to code outside the store instead of the raw Db: one interface per
// aggregate, all on one database. A caller asks for the ones it needs (Pick<Repos, ...>), so a
// second engine (PostgreSQL) implements these, not SQL scattered over the web surfaces.
import { createAccountRepo, type AccountRepo } from './accounts';
import { createApiKeyRepo, type ApiKeyRepo } from './api-keys';
import type { Sync } from './awaitable';
import { sqliteClaims } from './claim-slots';
import type { Db } from './db';
import { createEndedCounts } from './ended-counts';
import { createDetectionRepo, type DetectionRepo, type DetectionStates } from './detection';
import { createEventRepo, type EventRepo } from './events';
import { createIdempotencyRepo, type IdempotencyRepo } from './idempotency';
import { createIntentRepo, type IntentRepo } from './intents';
import { createLeaseStore, type LeaseStore } from './leases';
import { createIntentsOverviewRepo, type IntentsOverviewRepo } from './intents-overview';
import { createLiveEventRepo, type LiveEventRepo } from './live-events';
import { createOutbox, type Outbox } from './outbox';
import { createPaymentRepo, type PaymentRepo } from './payments';
import { createSubmissionRepo, type SubmissionRepo } from './submissions';
import { createDeliveryRepo, type DeliveryRepo } from './webhook-deliveries';
import { createDispatchStore, type DispatchStore } from './webhook-dispatch';
import { createWebhookEndpointRepo, type WebhookEndpointRepo } from './webhook-endpoints';

/** Every repository of one database (Store.repos; inside Store.transact, bound to its transaction). */
export interface StoreRepos {
  intents: IntentRepo;
  idempotency: IdempotencyRepo;
  payments: PaymentRepo;
  detection: DetectionRepo;
  submissions: SubmissionRepo;
  outbox: Outbox;
  accounts: AccountRepo;
  apiKeys: ApiKeyRepo;
  endpoints: WebhookEndpointRepo;
  deliveries: DeliveryRepo;
  events: EventRepo;
  liveEvents: LiveEventRepo;
  intentsOverview: IntentsOverviewRepo;
  dispatch: DispatchStore;
  /** Work leases (src/actors/work-leases.ts); inside a transaction, `check` fences the write. */
  leases: LeaseStore;
}

/** The name the web surfaces and webhook verbs have always used. */
export type Repos = StoreRepos;

/** The repositories HTTP code and the webhook verbs read, on SQLite (synchronous; CLI and tests). `states`: the machine's tag sets (states.ts). */
export function createRepos(db: Db, states: DetectionStates) {
  // The live view's kept ended counts, which the accounts page's first count fills too.
  const ended = createEndedCounts();
  return {
    accounts: createAccountRepo(db),
    apiKeys: createApiKeyRepo(db),
    endpoints: createWebhookEndpointRepo(db),
    deliveries: createDeliveryRepo(db),
    events: createEventRepo(db),
    liveEvents: createLiveEventRepo(db, states.live, ended),
    intentsOverview: createIntentsOverviewRepo(db, states.live, ended),
  };
}

/**
 * Every repository on one SQLite database. `states` are the machine's tag sets (see states.ts);
 * `owner` names this instance in the claims it takes.
 */
export function createSqliteRepos(db: Db, states: DetectionStates, owner?: string): SqliteRepos {
  const claims = sqliteClaims(db.sqlite, owner);
  return {
    ...createRepos(db, states),
    intents: createIntentRepo(db.sqlite, { live: states.live }),
    idempotency: createIdempotencyRepo(db.sqlite, claims.idempotency),
    payments: createPaymentRepo(db.sqlite),
    detection: createDetectionRepo(db.sqlite, states),
    submissions: createSubmissionRepo(db.sqlite, claims.broadcast),
    outbox: createOutbox(db.sqlite),
    dispatch: createDispatchStore(db),
    leases: createLeaseStore(db.sqlite),
  };
}

/** StoreRepos as SQLite provides them: every method synchronous. */
export type SqliteRepos = {
  [K in keyof StoreRepos]: K extends 'liveEvents' ? Sync<LiveEventRepo, 'durable'> : Sync<StoreRepos[K]>;
};
