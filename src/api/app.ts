// createApp(deps): the whole HTTP surface. Every error leaves as the envelope of contract
// section 10 from the one table in errors.ts; every response carries X-Request-Id.
import { Value } from '@sinclair/typebox/value';
import { Elysia, ValidationError } from 'elysia';
import { AppError } from '../domain/errors';
import { RpcCallError } from '../rpc/types';
import { newId } from '../domain/ids';
import type { ApiDeps } from './deps';
import { errorResponse, internalError } from './errors';
import { docsRoutes } from './docs/index';
import { MAX_BODY_BYTES, readJsonBody, tooLarge } from './json-body';
import { healthRoutes } from './health/index';
import { intentRoutes } from './intents/index';
import { paymentRoutes } from './payments/index';
import { testRoutes } from './test/index';
import { webhookRoutes } from './webhooks/index';
import { openApiDocument, type RouteLike } from './openapi/document';
import { dashboardRoutes } from '../dashboard/index';

export { MAX_BODY_BYTES } from './json-body';

const isV1 = (path: string): boolean => path.startsWith('/v1/');

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

export function createApp(d: ApiDeps) {
  const requestIds = new WeakMap<Request, string>();
  const idOf = (r: Request) => requestIds.get(r) ?? 'req_unknown';

  let allowedMethods: ((path: string) => string[]) | null = null;

  // normalize off: Elysia would otherwise strip unknown fields (and "clean" a string into an
  // object of characters) before validation; every body, query and response schema is exact, so
  // an unknown field is a 400 naming it. encodeSchema off: responses are still checked against their schemas (compiled Check), but not
  // run through TypeBox's interpreted Encode, whose only transforms here are t.Integer's identity
  // encoders. It cost ~5% of a create request (bench/create).
  const app = new Elysia({ normalize: false, encodeSchema: false })
    .onRequest(({ request, set }) => {
      const id = request.headers.get('x-request-id')?.slice(0, 64).replace(/[^\w.-]/g, '') || newId('req', 20);
      requestIds.set(request, id);
      set.headers['x-request-id'] = id;
      // Authenticate before the body is parsed or validated: a caller without a valid key
      // learns nothing but 401. The handler reads the resolved caller and applies the rate limit.
      const url = request.url;
      if (url.startsWith('/v1/', url.indexOf('/', url.indexOf('//') + 2))) d.checkKey(request);
      const len = Number(request.headers.get('content-length') ?? 0);
      if (len > MAX_BODY_BYTES) return errorResponse(tooLarge(), id);
    })
    // /v1 bodies: JSON only, bounded, depth-checked, no "__proto__" (json-body.ts). Other surfaces
    // (the dashboard's forms) keep Elysia's parsers.
    .onParse(({ request, path }) => (isV1(path) ? readJsonBody(request) : undefined))
    // An empty query value is the parameter left out (?limit=&starting_after= from a form or a
    // template), not a malformed one.
    .onTransform(({ query, path }) => {
      if (!isV1(path) || !query) return;
      for (const k of Object.keys(query)) if (query[k] === '') delete query[k];
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
        const retry = d.services.config.rpc.retryAfterSeconds;
        return errorResponse(new AppError('rpc.unavailable', 'An RPC upstream refused the request; retry later.', { details: { retry_after: retry } }), id);
      }
      d.log('error', 'unhandled error', { request_id: id, code: String(code), error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      return internalError(id);
    });

  // The document is made once, on first request, from every route's own schemas.
  let document: Record<string, unknown> | null = null;
  app.get('/openapi.json', () => (document ??= openApiDocument(app.routes as unknown as RouteLike[])), { detail: { hide: true } });

  return dashboardRoutes(testRoutes(paymentRoutes(webhookRoutes(intentRoutes(healthRoutes(docsRoutes(app), d), d), d), d), d), d);
}

export type App = ReturnType<typeof createApp>;
