// /v1/test routes: test-mode only operations (a live key gets 403 auth.test_key_required).
import { Elysia } from 'elysia';
import { simulateTransition } from '../../intents/simulate-transition';
import type { ApiDeps } from '../deps';
import { errorResponses, IdParams, IntentResponse, SimulateBody } from '../intents/model';

export function testRoutes(d: ApiDeps) {
  return new Elysia({ name: 'api.test' }).post(
    '/v1/test/intents/:id/simulate',
    ({ request, params, body }) => simulateTransition(d.services, d.caller(request), { id: params.id, ...body }),
    { params: IdParams, body: SimulateBody, parse: 'json', response: { 200: IntentResponse, ...errorResponses(400, 403, 404, 409, 413, 415, 422) }, detail: { tags: ['Test mode'], operationId: 'simulateTransition', summary: 'Force a lifecycle transition (test keys only)' } },
  );
}
