// /v1/webhooks (delivery list, replay) and /v1/events (the event log) routes.
import { Elysia, t } from 'elysia';
import { invalidParam } from '../../domain/errors';
import { requirePro } from '../../intents/refund-intent';
import { getEvent } from '../../webhooks/get-event';
import { listDeliveries } from '../../webhooks/list-deliveries';
import { listEvents } from '../../webhooks/list-events';
import { retryDelivery } from '../../webhooks/retry-delivery';
import type { ApiDeps } from '../deps';
import { noBody } from '../json-body';
import { errorResponses, EventEnvelope, IdParams } from '../intents/model';
import { Enum, Id, Iso, LimitParam, Nullable } from '../schema-kit';

const Delivery = t.Object(
  {
    id: Id('whd'),
    eventId: Id('evt'),
    url: t.String({ description: 'The endpoint it was sent to (never with credentials)' }),
    status: Enum(['pending', 'delivered', 'failed'], { title: 'DeliveryStatus' }),
    responseStatus: Nullable(t.Integer({ description: 'HTTP status of the last answer' })),
    attemptCount: t.Integer({ minimum: 0 }),
    lastAttemptedAt: Nullable(Iso),
    nextAttemptAt: Nullable(Iso),
    lastError: Nullable(t.String({ description: 'A short excerpt of what went wrong' })),
    deliveredAt: Nullable(Iso),
    failedAt: Nullable(Iso),
    createdAt: Iso,
  },
  { title: 'WebhookDelivery' },
);

// Limits are parsed by hand so that "0", "101" or "abc" all get 400 with param limit.
const LimitQuery = t.Object(
  {
    limit: t.Optional(LimitParam),
    starting_after: t.Optional(t.String({ maxLength: 64, description: 'An id from the previous page: the page after it (empty = from the newest)' })),
  },
  { additionalProperties: false },
);

/** limit=1..100; absent or empty = 20 (an empty query value is the parameter left out). */
export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 20;
  const n = /^[0-9]{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= 100)) throw invalidParam('limit', 'limit must be an integer from 1 to 100.');
  return n;
}

export function webhookRoutes(d: ApiDeps) {
  return new Elysia({ name: 'api.webhooks' })
    .get(
      '/v1/webhooks',
      ({ request, query }) => listDeliveries(d.webhooks, d.caller(request), { limit: parseLimit(query.limit), startingAfter: query.starting_after }),
      { query: LimitQuery, response: { 200: t.Object({ deliveries: t.Array(Delivery), hasMore: t.Boolean() }, { title: 'WebhookDeliveryList' }), ...errorResponses(400) }, detail: { tags: ['Webhooks'], operationId: 'listWebhookDeliveries', summary: 'Webhook deliveries, newest first' } },
    )
    .post(
      '/v1/webhooks/:id/retry',
      async ({ request, params, set }) => {
        const c = d.caller(request);
        requirePro(c, 'webhook_retry');
        const r = await retryDelivery(d.webhooks, c, { id: params.id });
        d.wakeDispatcher();
        // Status is the edge's: the replay is queued, not yet sent.
        set.status = 202;
        return r;
      },
      { params: IdParams, beforeHandle: ({ body }) => noBody(body), response: { 202: t.Object({ delivery: Delivery }, { title: 'WebhookDeliveryResponse' }), ...errorResponses(400, 402, 404, 409) }, detail: { tags: ['Webhooks'], operationId: 'retryWebhookDelivery', summary: 'Replay a delivery: a new delivery of the same event, sent at once (pro plan)' } },
    )
    .get(
      '/v1/events',
      ({ request, query }) => listEvents(d.webhooks, d.caller(request), { limit: parseLimit(query.limit), startingAfter: query.starting_after }),
      { query: LimitQuery, response: { 200: t.Object({ events: t.Array(EventEnvelope), hasMore: t.Boolean() }, { title: 'EventList' }), ...errorResponses(400) }, detail: { tags: ['Events'], operationId: 'listEvents', summary: 'Events, newest first' } },
    )
    .get(
      '/v1/events/:id',
      ({ request, params }) => getEvent(d.webhooks, d.caller(request), { id: params.id }),
      { params: IdParams, response: { 200: EventEnvelope, ...errorResponses(404) }, detail: { tags: ['Events'], operationId: 'getEvent', summary: 'One event envelope' } },
    );
}
