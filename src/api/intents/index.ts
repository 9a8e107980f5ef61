// /v1/intents routes: create, list, get, patch, cancel, build, submit, detected, refund.
import { Elysia } from 'elysia';
import { buildTransaction } from '../../intents/build-transaction';
import { cancelIntent } from '../../intents/cancel-intent';
import { createIntent } from '../../intents/create-intent';
import { getIntent } from '../../intents/get-intent';
import { listIntents } from '../../intents/list-intents';
import { markDetected } from '../../intents/mark-detected';
import { refundIntent } from '../../intents/refund-intent';
import { submitTransaction } from '../../intents/submit-transaction';
import { updateIntent } from '../../intents/update-intent';
import type { PaymentIntentWire } from '../../domain/intent';
import { intentBodyJson } from '../../domain/intent-json';
import { answeredFromDurableWrite } from '../../web/durable-answer';
import type { ApiDeps } from '../deps';
import { noBody } from '../json-body';
import { parseLimit } from '../webhooks/index';
import {
  BuildBody, BuildResponse, CreateIntentBody, IdParams, IntentResponse, ListIntentsQuery, ListIntentsResponse,
  SubmitBody, SubmitResponse, UpdateIntentBody, errorResponses,
} from './model';

const tags = ['Intents'];

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Same key and body within 24 h: the first answer again (Idempotent-Replayed: true); another body: 422 idempotency.key_reused',
  schema: { type: 'string' as const, minLength: 1, maxLength: 255 },
} as const;

/**
 * The 201 body of a create, after its response check: the text its intent.created payload was
 * made of (src/domain/intent-json.ts), not a second JSON.stringify of the same intent (~1-2 µs of
 * the event loop per create). Elysia answers a string a mapResponse hook returns with
 * `new Response(text, set)` (its status and headers, as for an object); its type names Response only.
 */
const renderedBody = (({ responseValue, set }: { responseValue: unknown; set: { headers: Record<string, string> } }) => {
  const intent = (responseValue as { intent?: PaymentIntentWire } | null | undefined)?.intent;
  if (intent === undefined) return undefined;
  set.headers['content-type'] = 'application/json;charset=utf-8';
  return intentBodyJson(intent);
}) as unknown as () => undefined;

export function intentRoutes(d: ApiDeps) {
  const s = d.services;
  return new Elysia({ name: 'api.intents' })
    .post(
      '/v1/intents',
      // The one header read from the request itself: naming `headers` here would make Elysia copy
      // every header into an object for each create (Headers.toJSON).
      async ({ body, set, request }) => {
        const r = await createIntent(s, d.caller(request), { body, idempotencyKeyHeader: request.headers.get('idempotency-key') });
        // Status is the edge's: create is 201, a replay too (with the header that says so).
        set.status = 201;
        if (r.replayed) set.headers['idempotent-replayed'] = 'true';
        // A new intent is this request's own write, settled once durable: no further wait (a
        // replay read a stored answer, which the server's general wait still covers).
        else answeredFromDurableWrite(request);
        return { intent: r.intent };
      },
      {
        body: CreateIntentBody,
        parse: 'json',
        response: { 201: IntentResponse, ...errorResponses(400, 409, 413, 415, 422, 503) },
        mapResponse: renderedBody,
        detail: { tags, operationId: 'createIntent', summary: 'Create a payment intent', parameters: [IDEMPOTENCY_KEY] },
      },
    )
    .get(
      '/v1/intents',
      ({ request, query }) =>
        listIntents(s, d.caller(request), {
          limit: parseLimit(query.limit),
          startingAfter: query.starting_after,
          state: query.state,
          reference: query.reference,
        }),
      { query: ListIntentsQuery, response: { 200: ListIntentsResponse, ...errorResponses(400) }, detail: { tags, operationId: 'listIntents', summary: 'List intents, newest first' } },
    )
    .get('/v1/intents/:id', ({ request, params }) => getIntent(s, d.caller(request), { id: params.id }), {
      params: IdParams, response: { 200: IntentResponse, ...errorResponses(404) }, detail: { tags, operationId: 'getIntent', summary: 'Retrieve an intent' },
    })
    .patch(
      '/v1/intents/:id',
      ({ request, params, body }) => updateIntent(s, d.caller(request), { id: params.id, ...body }),
      { params: IdParams, body: UpdateIntentBody, parse: 'json', response: { 200: IntentResponse, ...errorResponses(400, 404, 409, 413, 415) }, detail: { tags, operationId: 'updateIntent', summary: 'Update reference or metadata (optimistic concurrency on updatedAt)' } },
    )
    .post('/v1/intents/:id/cancel', ({ request, params }) => cancelIntent(s, d.caller(request), { id: params.id }), {
      params: IdParams, beforeHandle: ({ body }) => noBody(body), response: { 200: IntentResponse, ...errorResponses(400, 404, 409) }, detail: { tags, operationId: 'cancelIntent', summary: 'Cancel an intent in created' },
    })
    .post(
      '/v1/intents/:id/build',
      ({ request, params, body }) => buildTransaction(s, d.caller(request), { id: params.id, ...body }),
      { params: IdParams, body: BuildBody, parse: 'json', response: { 200: BuildResponse, ...errorResponses(400, 404, 409, 413, 415, 422, 503) }, detail: { tags, operationId: 'buildTransaction', summary: 'Build the unsigned transaction for the fulfiller' } },
    )
    .post(
      '/v1/intents/:id/submit',
      ({ request, params, body }) => submitTransaction(s, d.caller(request), { id: params.id, ...body }),
      { params: IdParams, body: SubmitBody, parse: 'json', response: { 200: SubmitResponse, ...errorResponses(400, 404, 409, 413, 415, 422, 503) }, detail: { tags, operationId: 'submitTransaction', summary: 'Submit the signed transaction; broadcast; pending' } },
    )
    .post('/v1/intents/:id/detected', ({ request, params }) => markDetected(s, d.caller(request), { id: params.id }), {
      params: IdParams, beforeHandle: ({ body }) => noBody(body), response: { 200: IntentResponse, ...errorResponses(400, 404, 409) }, detail: {
        tags,
        operationId: 'markDetected',
        summary: 'Record that the payment was detected (sets detectedAt once)',
        description:
          'The fulfiller (or your app on its behalf) reports that it has seen the payment arrive (often before the chain confirms it). The first call sets `detectedAt` and emits `intent.detected`; later calls change nothing. Allowed in created, pending, dropped, confirmed and finalized; 409 `intent.invalid_state` otherwise. It does not move the state: confirmation still comes from the chain.',
      },
    })
    .post('/v1/intents/:id/refund', ({ request, params }) => refundIntent(s, d.caller(request), { id: params.id }), {
      params: IdParams, beforeHandle: ({ body }) => noBody(body), response: { 200: IntentResponse, ...errorResponses(400, 402, 404, 409, 422, 503) }, detail: { tags, operationId: 'refundIntent', summary: 'Create a linked refund intent (pro plan)' },
    });
}
