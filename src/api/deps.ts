// What the API plugin is handed by the composition root (src/compose.ts). Controllers destructure
// what they need and call a verb; Elysia's context never goes further than the route file.
import type { Caller } from '../domain/caller';
import type { Services } from '../intents/services';
import type { WebhookServices } from '../webhooks/services';

export interface ApiDeps {
  services: Services;
  /** What the webhook and event verbs are handed (repositories, never the raw database). */
  webhooks: WebhookServices;
  /** The request's caller, as checkKey resolved it. */
  caller(request: Request): Caller;
  /**
   * Resolve the request's key before parsing (401 unless valid and unrevoked) and take one rate
   * token (429); remembered per request. Synchronous (throws) when the key look-up is (SQLite).
   */
  checkKey(request: Request): void | Promise<void>;
  /** Wake the webhook dispatcher after queuing a delivery. */
  wakeDispatcher(): void;
  /** True once the DB is open and live actors are rehydrated. */
  ready(): boolean;
  /** Prometheus text for /metrics. */
  metrics(): Promise<string>;
  /** Structured log line (stderr). */
  log(level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>): void;
  /** Throws while the database cannot be reached (/readyz answers 503 then). */
  ping(): Promise<void>;
}
