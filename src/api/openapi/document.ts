// GET /openapi.json: the OpenAPI 3.1 document, made from the routes' own schemas (the ones Elysia
// validates with), so the document cannot drift from what the server accepts and answers.
// Named components (see schemas.ts), every error status with the envelope and the codes it can
// carry (from the one status table), X-Request-Id on every answer, Retry-After on 429 and 503.
import type { ErrorCode } from '../../domain/errors';
import { HTTP_STATUS } from '../../web/http-status';
import { SchemaNames, type JsonSchema } from './schemas';

/** What the document reads of an Elysia route (app.routes). */
export interface RouteLike {
  method: string;
  path: string;
  hooks?: {
    body?: unknown;
    query?: unknown;
    params?: unknown;
    response?: unknown;
    detail?: { hide?: boolean; parameters?: unknown[]; responses?: Record<string, unknown>; [k: string]: unknown };
  };
}

const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete']);

const SUCCESS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

/** Each status's error codes, from the table every error leaves through. */
function codesByStatus(): Map<number, ErrorCode[]> {
  const m = new Map<number, ErrorCode[]>();
  for (const [code, status] of Object.entries(HTTP_STATUS) as [ErrorCode, number][]) m.set(status, [...(m.get(status) ?? []), code]);
  return m;
}

const HEADERS = {
  RequestId: { description: 'The request id (yours, if you sent X-Request-Id); every 5xx is logged with it', schema: { type: 'string' } },
  RetryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
};

export const DOCUMENT_HEAD = {
  openapi: '3.1.0',
  info: {
    title: 'PayForge API',
    version: '1.0.0',
    description:
      'Self-hosted payment intents on Solana, Base and Tempo. Authenticate with `Authorization: Bearer pk_test_…` or `pk_live_…`. Errors are `{"error":{"code","message","param","details"}}`.',
    license: { name: 'Proprietary', identifier: 'LicenseRef-PayForge' },
  },
  servers: [{ url: '/', description: 'This PayForge server' }],
  security: [{ bearer: [] }],
  tags: [
    { name: 'Intents', description: 'Payment intents and their lifecycle' },
    { name: 'Payments', description: 'Transfers found on chain' },
    { name: 'Webhooks', description: 'Webhook deliveries' },
    { name: 'Events', description: 'The event log' },
    { name: 'Test mode', description: 'Test keys only' },
    { name: 'Operations', description: 'Health, readiness and metrics; no key' },
  ],
};

export function openApiDocument(routes: readonly RouteLike[]): JsonSchema {
  const names = new SchemaNames();
  const codes = codesByStatus();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const method = r.method.toLowerCase();
    const hooks = r.hooks ?? {};
    if (!METHODS.has(method) || hooks.detail?.hide) continue;
    const path = r.path.replace(/:(\w+)/g, '{$1}');
    const { parameters: extra = [], responses: given = {}, hide: _hide, ...detail } = hooks.detail ?? {};
    const parameters = [...pathParameters(r.path, hooks.params, names), ...queryParameters(hooks.query, names), ...extra];
    const op: Record<string, unknown> = { ...detail };
    if (parameters.length > 0) op.parameters = parameters;
    if (hooks.body !== undefined) {
      const schema = names.convert(hooks.body);
      op.requestBody = { required: hasRequired(hooks.body), content: { 'application/json': { schema } } };
    }
    op.responses = { ...responses(hooks.response, names, codes), ...given };
    paths[path] = { ...paths[path], [method]: op };
  }
  return {
    ...DOCUMENT_HEAD,
    paths,
    components: {
      schemas: names.schemas,
      headers: HEADERS,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'pk_test_… or pk_live_…' } },
    },
  };
}

const hasRequired = (s: unknown): boolean => Array.isArray((s as { required?: unknown }).required) && ((s as { required: unknown[] }).required.length > 0);

function objectProperties(schema: unknown, names: SchemaNames): { props: Record<string, JsonSchema>; required: string[] } {
  const s = names.convert(schema);
  return { props: (s.properties ?? {}) as Record<string, JsonSchema>, required: (s.required ?? []) as string[] };
}

function pathParameters(path: string, params: unknown, names: SchemaNames): unknown[] {
  const { props } = params === undefined ? { props: {} as Record<string, JsonSchema> } : objectProperties(params, names);
  return [...path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: props[name as string] ?? { type: 'string' } }));
}

function queryParameters(query: unknown, names: SchemaNames): unknown[] {
  if (query === undefined) return [];
  const { props, required } = objectProperties(query, names);
  return Object.entries(props).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, in: 'query', required: required.includes(name), ...(description ? { description } : {}), schema: rest };
  });
}

function responses(response: unknown, names: SchemaNames, codes: Map<number, ErrorCode[]>): Record<string, unknown> {
  if (response === undefined) return {};
  const out: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(response as Record<string, unknown>)) {
    const n = Number(status);
    const headers: Record<string, unknown> = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
    if (n === 429 || n === 503) headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
    const description =
      n < 400 ? (SUCCESS[n] ?? 'OK') : `Error envelope; \`code\` is one of ${(codes.get(n) ?? []).map((c) => `\`${c}\``).join(', ')}`;
    out[status] = { description, headers, content: { 'application/json': { schema: names.convert(schema) } } };
  }
  return out;
}
