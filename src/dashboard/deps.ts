// What the dashboard is handed by the composition root (src/compose.ts). Its own shape, not the
// API's: the surfaces are siblings and share only verbs, the store's repositories and src/web.
import type { Services } from '../intents/services';
import type { Log } from '../log';
import type { Repos } from '../store/repos';
import type { WebhookServices } from '../webhooks/services';

export interface DashboardDeps {
  services: Services;
  /** The store's repositories, never the raw database. */
  repos: Repos;
  /** What the webhook verbs are handed: the same as the API's. */
  webhooks: WebhookServices;
  /**
   * Run `fn` when the server starts to stop, before it waits for open responses: the live
   * streams end there, or a graceful stop never would.
   */
  beforeStop(fn: () => void): void;
  /** Wake the webhook dispatcher after queuing a delivery. */
  wakeDispatcher(): void;
  log: Log;
}
