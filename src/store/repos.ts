// The repositories handed to code outside the store instead of the raw Db: one interface per
// aggregate, all on one database. A caller asks for the ones it needs (Pick<Repos, ...>), so a
// second engine (PostgreSQL) implements these, not SQL scattered over the web surfaces.
import { createAccountRepo, type AccountRepo } from './accounts';
import { createApiKeyRepo, type ApiKeyRepo } from './api-keys';
import type { Db } from './db';
import { createEventRepo, type EventRepo } from './events';
import { createIntentsOverviewRepo, type IntentsOverviewRepo } from './intents-overview';
import { createLiveEventRepo, type LiveEventRepo } from './live-events';
import { createDeliveryRepo, type DeliveryRepo } from './webhook-deliveries';
import { createWebhookEndpointRepo, type WebhookEndpointRepo } from './webhook-endpoints';

export interface Repos {
  accounts: AccountRepo;
  apiKeys: ApiKeyRepo;
  endpoints: WebhookEndpointRepo;
  deliveries: DeliveryRepo;
  events: EventRepo;
  liveEvents: LiveEventRepo;
  intentsOverview: IntentsOverviewRepo;
}

export function createRepos(db: Db): Repos {
  return {
    accounts: createAccountRepo(db),
    apiKeys: createApiKeyRepo(db),
    endpoints: createWebhookEndpointRepo(db),
    deliveries: createDeliveryRepo(db),
    events: createEventRepo(db),
    liveEvents: createLiveEventRepo(db),
    intentsOverview: createIntentsOverviewRepo(db),
  };
}
