// createApp(deps): the whole HTTP surface. Every error leaves as the envelope of contract
// section 10 from the one table in errors.ts; every response carries X-Request-Id.
import { openapi } from '@elysiajs/openapi';
import { Elysia, ValidationError } from 'elysia';
import { AppError } from '../domain/errors';
import { newId } from '../domain/ids';
import type { ApiDeps } from './deps';
import { errorResponse, internalError } from './errors';
import { healthRoutes } from './health/index';
import { intentRoutes } from './intents/index';
import { testRoutes } from './test/index';
import { webhookRoutes } from './webhooks/index';
import { dashboardRoutes } from '../dashboard/index';

export const MAX_BODY_BYTES = 1024 * 1024;

function validationToAppError(e: ValidationError): AppError {
  const first = e.valueError;
  const path = first?.path?.replace(/^\//, '').replace(/\//g, '.') ?? '';
  const where = e.type === 'query' || e.type === 'params' || e.type === 'body' ? e.type : 'request';
  const param = path !== '' ? path : where === 'body' ? null : where;
  const message = first ? `${path || where}: ${first.message}` : `Invalid ${where}.`;
  return new AppError('request.invalid_param', message, { param });
}

export function createApp(d: ApiDeps) {
  const requestIds = new WeakMap<Request, string>();
  const idOf = (r: Request) => requestIds.get(r) ?? 'req_unknown';

  // encodeSchema off: responses are still checked against their schemas (compiled Check), but not
  // run through TypeBox's interpreted Encode, whose only transforms here are t.Integer's identity
  // encoders. It cost ~5% of a create request (bench/create).
  const app = new Elysia({ normalize: true, encodeSchema: false })
    .use(
      openapi({
        path: '/docs',
        specPath: '/openapi.json',
        provider: 'swagger-ui',
        documentation: {
          info: {
            title: 'PayForge API',
            version: '1.0.0',
            description:
              'Self-hosted payment intents on Solana, Base and Tempo. Authenticate with `Authorization: Bearer pk_test_…` or `pk_live_…`. Errors are `{"error":{"code","message","param","details"}}`.',
          },
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'pk_test_… or pk_live_…' } } },
          security: [{ bearer: [] }],
        },
        exclude: { paths: ['/docs', '/openapi.json'] },
      }),
    )
    .onRequest(({ request, set }) => {
      const id = request.headers.get('x-request-id')?.slice(0, 64).replace(/[^\w.-]/g, '') || newId('req', 20);
      requestIds.set(request, id);
      set.headers['x-request-id'] = id;
      // Authenticate before the body is parsed or validated: a caller without a valid key
      // learns nothing but 401. The handler reads the resolved caller and applies the rate limit.
      const url = request.url;
      if (url.startsWith('/v1/', url.indexOf('/', url.indexOf('//') + 2))) d.checkKey(request);
      const len = Number(request.headers.get('content-length') ?? 0);
      if (len > MAX_BODY_BYTES) {
        return errorResponse(new AppError('request.too_large', `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`), id);
      }
    })
    .onError(({ code, error, request }) => {
      const id = idOf(request);
      if (error instanceof AppError) {
        if (error.code === 'rpc.unavailable' || error.code === 'screening.unavailable') {
          d.log('warn', error.code, { request_id: id, cause: String((error as Error).cause ?? '') });
        }
        return errorResponse(error, id);
      }
      if (code === 'VALIDATION' && error instanceof ValidationError) return errorResponse(validationToAppError(error), id);
      // Elysia wraps what a parser throws: our own refusal (too large) is the cause.
      const cause = (error as { cause?: unknown }).cause;
      if (code === 'PARSE' && cause instanceof AppError) return errorResponse(cause, id);
      if (code === 'PARSE') return errorResponse(new AppError('request.malformed_json', 'The request body is not valid JSON.'), id);
      if (code === 'NOT_FOUND') return errorResponse(new AppError('route.not_found', `No route ${request.method} ${new URL(request.url).pathname}.`), id);
      d.log('error', 'unhandled error', { request_id: id, code: String(code), error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      return internalError(id);
    });

  return dashboardRoutes(testRoutes(webhookRoutes(intentRoutes(healthRoutes(app, d), d), d), d), d);
}

export type App = ReturnType<typeof createApp>;
