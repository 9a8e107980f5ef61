// What the HTTP layer is handed by src/server.ts. Controllers destructure what they need and
// call a verb; Elysia's context never goes further than the route file.
import type { Caller } from '../domain/caller';
import type { Services } from '../intents/services';
import type { Db } from '../store/db';

export interface ApiDeps {
  services: Services;
  db: Db;
  /** Resolve and rate-limit the caller from the Authorization header (throws AppError). */
  authenticate(authorization: string | undefined | null): Caller;
  /** Throw 401 unless the header carries a valid, unrevoked key (no rate limit). */
  checkKey(authorization: string | undefined | null): void;
  /** Wake the webhook dispatcher after queuing a delivery. */
  wakeDispatcher(): void;
  /** True once the DB is open and live actors are rehydrated. */
  ready(): boolean;
  /** Prometheus text for /metrics. */
  metrics(): string;
  /** Structured log line (stderr). */
  log(level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>): void;
}
