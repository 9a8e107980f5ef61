// The one AppError -> HTTP table, and the error envelope of contract section 10.
// Anything that is not an AppError becomes a bare 500: no stack trace leaves the process.
import type { ErrorCode } from '../domain/errors';
import { AppError } from '../domain/errors';

export const HTTP_STATUS: Record<ErrorCode, number> = {
  'request.malformed_json': 400,
  'request.invalid_param': 400,
  'request.too_large': 413,
  'route.not_found': 404,
  'auth.invalid_api_key': 401,
  'auth.test_key_required': 403,
  'plan.upgrade_required': 402,
  'rate_limit.exceeded': 429,
  'intent.not_found': 404,
  'intent.invalid_state': 409,
  'intent.already_fulfilled': 409,
  'intent.already_refunded': 409,
  'intent.expired': 409,
  'intent.stale_update': 409,
  'idempotency.key_reused': 422,
  'idempotency.in_progress': 409,
  'chain.unavailable_in_mode': 422,
  'chain.unsupported': 422,
  'token.unavailable_on_chain': 422,
  'token.unsupported_program': 422,
  'simulate.unsupported_for_chain': 422,
  'transaction.mismatch': 422,
  'transaction.rejected': 422,
  'transaction.already_submitted': 409,
  'transaction.not_found': 422,
  'address.sanctions_match': 422,
  'screening.unavailable': 503,
  'rpc.unavailable': 503,
  'webhook.not_found': 404,
  'webhook.invalid_endpoint': 400,
  'webhook.no_endpoint': 409,
  'event.not_found': 404,
  'account.not_found': 404,
  'key.not_found': 404,
  'payment.not_found': 404,
  'internal.error': 500,
  'request.unsupported_media_type': 415,
  'route.method_not_allowed': 405,
  'intent.fulfiller_required': 422,
};

export interface ErrorBody {
  error: { code: ErrorCode; message: string; param: string | null; details: Record<string, unknown> };
}

export function errorResponse(e: AppError, requestId: string, extraHeaders: Record<string, string> = {}): Response {
  const status = HTTP_STATUS[e.code] ?? 500;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': requestId, ...extraHeaders };
  const retryAfter = e.details.retry_after;
  if ((status === 503 || status === 429) && typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter);
  const body: ErrorBody = { error: { code: e.code, message: e.message, param: e.param, details: e.details } };
  return new Response(JSON.stringify(body), { status, headers });
}

export function internalError(requestId: string): Response {
  return errorResponse(
    new AppError('internal.error', 'Something went wrong on our side. Quote the request id if you contact support.', {
      details: { request_id: requestId },
    }),
    requestId,
  );
}
