// Operational surfaces outside /v1: liveness, readiness, Prometheus metrics.
import { Elysia, t } from 'elysia';
import { answeredWithoutStoredState } from '../../web/durable-answer';
import type { ApiDeps } from '../deps';

/** These answer without an API key: an empty security list overrides the document's default. */
const NO_KEY: [] = [];
const tags = ['Operations'];

const Health = t.Object({ status: t.Literal('ok') }, { title: 'Health' });
const Readiness = t.Object({ status: t.UnionEnum(['ready', 'starting', 'unavailable']) }, { title: 'Readiness' });

const METRICS_RESPONSES = {
  200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' as const } } } },
};

export function healthRoutes(d: ApiDeps) {
  return new Elysia({ name: 'api.health' })
    .get(
      '/healthz',
      ({ request }) => {
        answeredWithoutStoredState(request);
        return { status: 'ok' as const };
      },
      {
        response: { 200: Health },
        detail: { tags, operationId: 'health', summary: 'Liveness', security: NO_KEY },
      },
    )
    .get(
      '/readyz',
      async ({ request, set }) => {
        answeredWithoutStoredState(request);
        if (!d.ready()) {
          set.status = 503;
          set.headers['retry-after'] = '1';
          return { status: 'starting' as const };
        }
        try {
          await d.ping();
          return { status: 'ready' as const };
        } catch {
          // The database cannot be reached (PostgreSQL down or restarting), or SQLite refuses writes
          // (a failed sync: until restart; a disk without room: until it has some again): take this
          // instance out of the load balancer until it answers again.
          set.status = 503;
          set.headers['retry-after'] = '1';
          return { status: 'unavailable' as const };
        }
      },
      {
        response: { 200: Readiness, 503: Readiness },
        detail: { tags, operationId: 'ready', summary: 'Readiness: DB reachable and live actors rehydrated', security: NO_KEY },
      },
    )
    .get(
      '/metrics',
      async ({ request, set }) => {
        answeredWithoutStoredState(request);
        set.headers['content-type'] = 'text/plain; version=0.0.4';
        return d.metrics();
      },
      { detail: { tags, operationId: 'metrics', summary: 'Prometheus metrics', security: NO_KEY, responses: METRICS_RESPONSES } },
    );
}
