// The error envelope of contract section 10, the same on every web surface, with the status from
// the one table (http-status.ts). Anything that is not an AppError becomes a bare 500: no stack
// trace leaves the process.
import type { ErrorCode } from '../domain/errors';
import { AppError } from '../domain/errors';
import { HTTP_STATUS } from './http-status';

export interface ErrorBody {
  error: { code: ErrorCode; message: string; param: string | null; details: Record<string, unknown> };
}

export function errorResponse(e: AppError, requestId: string, extraHeaders: Record<string, string> = {}): Response {
  const status = HTTP_STATUS[e.code] ?? 500;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': requestId, ...extraHeaders };
  const retryAfter = e.details.retry_after;
  if ((status === 503 || status === 429) && typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter);
  // A 401 names the scheme that would be accepted (RFC 9110 section 15.5.2: it must).
  if (status === 401) headers['www-authenticate'] = 'Bearer realm="PayForge"';
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
