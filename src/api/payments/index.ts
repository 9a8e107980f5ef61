// /v1/payments routes: the ledger of transfers found on chain (contract section 11).
import { Elysia } from 'elysia';
import { getPayment } from '../../intents/get-payment';
import { listPayments } from '../../intents/list-payments';
import type { ApiDeps } from '../deps';
import { errorResponses, IdParams } from '../intents/model';
import { parseLimit } from '../webhooks/index';
import { ListPaymentsQuery, ListPaymentsResponse, PaymentResponse } from './model';

const tags = ['Payments'];

export function paymentRoutes(d: ApiDeps) {
  const s = d.services;
  return new Elysia({ name: 'api.payments' })
    .get(
      '/v1/payments',
      ({ request, query }) =>
        listPayments(s, d.caller(request), { limit: parseLimit(query.limit), startingAfter: query.starting_after, status: query.status }),
      {
        query: ListPaymentsQuery,
        response: { 200: ListPaymentsResponse, ...errorResponses(400) },
        detail: { tags, operationId: 'listPayments', summary: 'Transfers found on chain (matched, late, unmatched), newest first' },
      },
    )
    .get('/v1/payments/:id', ({ request, params }) => getPayment(s, d.caller(request), { id: params.id }), {
      params: IdParams,
      response: { 200: PaymentResponse, ...errorResponses(404) },
      detail: { tags, operationId: 'getPayment', summary: 'Retrieve a payment' },
    });
}
