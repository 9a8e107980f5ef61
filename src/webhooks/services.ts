// What every webhook verb is handed, as the intent verbs are handed src/intents/services.ts: the
// repositories it reads and writes (never the raw Db) and the config. Built once by the
// composition root (src/compose.ts) and by the CLI over its own database.
import type { Config } from '../config.types';
import type { Repos } from '../store/repos';
import type { Lookup } from './url-policy';

export interface WebhookServices extends Pick<Repos, 'accounts' | 'endpoints' | 'deliveries' | 'events'> {
  config: Config;
  /** The clock rotations and replays are stamped with; tests pin it. */
  now?: () => number;
  /** DNS for the endpoint URL policy; tests resolve names to chosen addresses. */
  lookup?: Lookup;
}

export function webhookServices(repos: Pick<Repos, 'accounts' | 'endpoints' | 'deliveries' | 'events'>, config: Config): WebhookServices {
  return { accounts: repos.accounts, endpoints: repos.endpoints, deliveries: repos.deliveries, events: repos.events, config };
}
