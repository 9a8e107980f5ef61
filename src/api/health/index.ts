// Operational surfaces outside /v1: liveness, readiness, Prometheus metrics.
import type { Elysia } from 'elysia';
import type { ApiDeps } from '../deps';

/** These answer without an API key: an empty security list overrides the document's default. */
const NO_KEY: [] = [];

// biome-ignore lint/suspicious/noExplicitAny: Elysia plugin generics until the surfaces become named plugins (issue 16 item 3)
export function healthRoutes<A extends Elysia<any, any, any, any, any, any, any>>(app: A, d: ApiDeps) {
  return app
    .get('/healthz', () => ({ status: 'ok' }), { detail: { tags: ['Operations'], summary: 'Liveness', security: NO_KEY } })
    .get(
      '/readyz',
      ({ set }) => {
        if (d.ready()) return { status: 'ready' };
        set.status = 503;
        set.headers['retry-after'] = '1';
        return { status: 'starting' };
      },
      { detail: { tags: ['Operations'], summary: 'Readiness: DB open and live actors rehydrated', security: NO_KEY } },
    )
    .get('/metrics', ({ set }) => {
      set.headers['content-type'] = 'text/plain; version=0.0.4';
      return d.metrics();
    }, { detail: { tags: ['Operations'], summary: 'Prometheus metrics', security: NO_KEY } });
}
