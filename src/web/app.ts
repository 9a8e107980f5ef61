// The shell every web surface is mounted in (by src/compose.ts): a request id on every response,
// the body limit, and every error as the envelope of contract section 10 from the one table
// (http-status.ts), a 405 with Allow on a known path. It owns no route: the surfaces are plugins.
import { Value } from '@sinclair/typebox/value';
import { Elysia, ValidationError } from 'elysia';
import { AppError } from '../domain/errors';
import { newId } from '../domain/ids';
import type { Log } from '../log';
import { RpcCallError } from '../rpc/types';
import { MAX_BODY_BYTES, tooLarge } from './body-limit';
import { errorResponse, internalError } from './envelope';

export interface WebAppDeps {
  log: Log;
  /** Retry-After for an upstream's JSON-RPC error (config rpc.retryAfterSeconds). */
  rpcRetryAfterSeconds: number;
}

/** The API reads (and bounds) /v1 bodies itself, after authentication: a caller without a key learns nothing but 401. */
const isV1Url = (url: string): boolean => url.startsWith('/v1/', url.indexOf('/', url.indexOf('//') + 2));

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const patternOf = (path: string): RegExp =>
  new RegExp(`^${path.split('/').map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : escapeRe(seg))).join('/')}/?$`);

/** Methods routed for each path pattern, for 405 + Allow on a known path with another method. */
function methodTable(routes: ReadonlyArray<{ method: string; path: string }>): (path: string) => string[] {
  const table = routes.map((r) => ({ method: r.method.toUpperCase(), re: patternOf(r.path) }));
  return (path) => {
    const methods = new Set(table.filter((r) => r.re.test(path)).map((r) => r.method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}

/** A readable reason for the first failure: enums list their values, a nullable field the inner rule. */
function reasonOf(first: { message: string; schema: unknown; value: unknown }): string {
  const schema = first.schema as { enum?: unknown[]; anyOf?: Array<{ type?: string; const?: unknown }> };
  if (Array.isArray(schema.enum)) return `Expected one of ${schema.enum.join(', ')}`;
  const inner = schema.anyOf?.filter((x) => x.type !== 'null');
  if (inner?.length === 1) return Value.Errors(inner[0] as never, first.value).First()?.message ?? first.message;
  return first.message;
}

/**
 * A JSON pointer ("/metadata/a~1b") as a param ("metadata.a/b"). A key that is empty is shown as
 * `""`, so an unknown empty key is still named (a param is never the empty string).
 */
function paramOf(pointer: string | undefined): string {
  if (!pointer) return '';
  return pointer
    .slice(1)
    .split('/')
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~') || '""')
    .join('.');
}

function validationToAppError(e: ValidationError): AppError {
  const first = e.valueError;
  const path = paramOf(first?.path);
  const where = e.type === 'query' || e.type === 'params' || e.type === 'body' ? e.type : 'request';
  const param = path !== '' ? path : where === 'body' ? null : where;
  const message = first ? `${path || where}: ${reasonOf(first)}` : `Invalid ${where}.`;
  return new AppError('request.invalid_param', message, { param });
}

export function createWebApp(d: WebAppDeps) {
  const requestIds = new WeakMap<Request, string>();
  const idOf = (r: Request) => requestIds.get(r) ?? 'req_unknown';

  let allowedMethods: ((path: string) => string[]) | null = null;

  const app = new Elysia({ normalize: false, encodeSchema: false })
    .onRequest(({ request, set }) => {
      const id = request.headers.get('x-request-id')?.slice(0, 64).replace(/[^\w.-]/g, '') || newId('req', 20);
      requestIds.set(request, id);
      set.headers['x-request-id'] = id;
      if (isV1Url(request.url)) return;
      const len = Number(request.headers.get('content-length') ?? 0);
      if (len > MAX_BODY_BYTES) return errorResponse(tooLarge(), id);
    })
    .onError(({ code, error, request }) => {
      const id = idOf(request);
      if (error instanceof AppError) {
        if (error.code === 'rpc.unavailable' || error.code === 'screening.unavailable') {
          d.log('warn', error.code, { request_id: id, cause: String((error as Error).cause ?? '') });
        }
        return errorResponse(error, id);
      }
      if (code === 'VALIDATION' && error instanceof ValidationError) {
        if (error.type !== 'response') return errorResponse(validationToAppError(error), id);
        // Our own answer does not match its schema: a bug, never the caller's fault.
        d.log('error', 'response does not match its schema', { request_id: id, error: error.message.slice(0, 2000) });
        return internalError(id);
      }
      // Elysia wraps what a parser throws: our own refusal (too large) is the cause.
      const cause = (error as { cause?: unknown }).cause;
      if (code === 'PARSE' && cause instanceof AppError) return errorResponse(cause, id);
      if (code === 'PARSE') return errorResponse(new AppError('request.malformed_json', 'The request body is not valid JSON.'), id);
      if (code === 'NOT_FOUND') {
        const path = new URL(request.url).pathname;
        allowedMethods ??= methodTable(app.routes);
        const allow = allowedMethods(path);
        if (allow.length > 0 && !allow.includes(request.method)) {
          return errorResponse(
            new AppError('route.method_not_allowed', `${request.method} is not allowed on ${path}; use ${allow.join(', ')}.`, { details: { allow } }),
            id,
            { allow: allow.join(', ') },
          );
        }
        return errorResponse(new AppError('route.not_found', `No route ${request.method} ${path}.`), id);
      }
      if (error instanceof RpcCallError) {
        // An upstream answered a read with a JSON-RPC error (an unsupported method, a node in
        // trouble): not the caller's fault and not ours; retry later, as for no answer at all.
        d.log('warn', 'rpc.unavailable', { request_id: id, cause: `${error.code} ${error.message}` });
        const retry = d.rpcRetryAfterSeconds;
        return errorResponse(new AppError('rpc.unavailable', 'An RPC upstream refused the request; retry later.', { details: { retry_after: retry } }), id);
      }
      d.log('error', 'unhandled error', { request_id: id, code: String(code), error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      return internalError(id);
    });

  return app;
}

export type WebApp = ReturnType<typeof createWebApp>;
