// AppError: the one error type for rule violations and expected refusals.
// Codes are append-only (integrators switch on them); src/api/errors.ts maps each to HTTP.

export const ERROR_CODES = [
  'request.malformed_json',
  'request.invalid_param',
  'request.too_large',
  'route.not_found',
  'auth.invalid_api_key',
  'auth.test_key_required',
  'plan.upgrade_required',
  'rate_limit.exceeded',
  'intent.not_found',
  'intent.invalid_state',
  'intent.already_fulfilled',
  'intent.already_refunded',
  'intent.expired',
  'intent.stale_update',
  'idempotency.key_reused',
  'idempotency.in_progress',
  'chain.unavailable_in_mode',
  'chain.unsupported',
  'token.unavailable_on_chain',
  'token.unsupported_program',
  'simulate.unsupported_for_chain',
  'transaction.mismatch',
  'transaction.rejected',
  'transaction.already_submitted',
  'transaction.not_found',
  'address.sanctions_match',
  'screening.unavailable',
  'rpc.unavailable',
  'webhook.not_found',
  'webhook.invalid_endpoint',
  'webhook.no_endpoint',
  'event.not_found',
  'account.not_found',
  'key.not_found',
  'payment.not_found',
  'internal.error',
  'request.unsupported_media_type',
  'route.method_not_allowed',
  'intent.fulfiller_required',
  'store.unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly param: string | null;
  readonly details: ErrorDetails;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { param?: string | null; details?: ErrorDetails; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.param = opts.param ?? null;
    this.details = opts.details ?? {};
  }
}

/** Shorthand for the most common refusal: a field that fails validation. */
export function invalidParam(param: string, message: string, details: ErrorDetails = {}): AppError {
  return new AppError('request.invalid_param', message, { param, details });
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
