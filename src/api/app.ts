// The API surface as one named plugin (src/compose.ts mounts it beside the dashboard and the
// payment page, in the shell of src/web/app.ts): /v1 authentication and bodies, /openapi.json and
// /docs, health, and one plugin per resource.
import { Elysia } from 'elysia';
import type { ApiDeps } from './deps';
import { docsRoutes } from './docs/index';
import { readJsonBody } from './json-body';
import { refuseRepeatedQuery } from './query-once';
import { healthRoutes } from './health/index';
import { intentRoutes } from './intents/index';
import { paymentRoutes } from './payments/index';
import { testRoutes } from './test/index';
import { webhookRoutes } from './webhooks/index';
import { openApiDocument, type RouteLike } from './openapi/document';
import { MAX_BODY_BYTES, tooLarge } from '../web/body-limit';

const isV1 = (path: string): boolean => path.startsWith('/v1/');

/** 413 for a declared body over the limit, before anything is read. */
function declaredSize(request: Request): undefined {
  if (Number(request.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  return undefined;
}

export function apiPlugin(d: ApiDeps) {
  // normalize off: Elysia would otherwise strip unknown fields (and "clean" a string into an
  // object of characters) before validation; every body, query and response schema is exact, so
  // an unknown field is a 400 naming it. encodeSchema off: responses are still checked against their schemas (compiled Check), but not
  // run through TypeBox's interpreted Encode, whose only transforms here are t.Integer's identity
  // encoders. It cost ~5% of a create request (bench/create).
  const api = new Elysia({ name: 'api', normalize: false, encodeSchema: false })
    .onRequest(({ request }) => {
      // Authenticate before the body is parsed or validated: a caller without a valid key
      // learns nothing but 401. The handler reads the resolved caller and applies the rate limit.
      // Not an async function: on SQLite the check answers at once, and Elysia catches a throw
      // here as it does a rejection (the same envelope), so no promise is made per request.
      const url = request.url;
      if (!url.startsWith('/v1/', url.indexOf('/', url.indexOf('//') + 2))) return;
      const checked = d.checkKey(request);
      if (checked !== undefined) return checked.then(() => declaredSize(request));
      declaredSize(request);
    })
    // /v1 bodies: JSON only, bounded, depth-checked, no "__proto__" (json-body.ts). Other surfaces
    // (the dashboard's forms) keep Elysia's parsers.
    .onParse(({ request, path }) => (isV1(path) ? readJsonBody(request) : undefined))
    // An empty query value is the parameter left out (?limit=&starting_after= from a form or a
    // template), not a malformed one. A parameter given twice is refused (query-once.ts).
    .onTransform(({ query, path, request }) => {
      if (!isV1(path) || !query) return;
      refuseRepeatedQuery(request.url);
      for (const k of Object.keys(query)) if (query[k] === '') delete query[k];
    })
    .use(docsRoutes())
    .use(healthRoutes(d))
    .use(intentRoutes(d))
    .use(webhookRoutes(d))
    .use(paymentRoutes(d))
    .use(testRoutes(d));

  // The document is made once, on first request, from every API route's own schemas.
  let document: Record<string, unknown> | null = null;
  return api.get('/openapi.json', () => (document ??= openApiDocument(api.routes as unknown as RouteLike[])), { detail: { hide: true } });
}
