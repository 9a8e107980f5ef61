// The one reader of /v1 request bodies: JSON only (415 otherwise), at most 1 MiB read from the
// stream (413), nesting depth bounded before JSON.parse (400), a JSON object at the top, and no
// "__proto__" key anywhere, so nothing later can be fooled by a smuggled prototype.
import { AppError } from '../domain/errors';
import { MAX_BODY_BYTES, readCapped, tooLarge } from '../web/body-limit';

/** Deepest nesting accepted; our deepest body, {metadata: {k: v}}, has 2 levels. */
export const MAX_JSON_DEPTH = 16;

const JSON_TYPE_RE = /^application\/(?:[\w.-]+\+)?json$/;

// One decoder for every body: decode() without { stream } starts afresh each call (and a new
// TextDecoder per request cost as much as the decoding itself).
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Parse a /v1 request body. An absent or empty body is `{}` (routes with required fields then
 * name the first missing one). Runs after authentication, so nothing is read before the 401.
 */
export async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
  const declared = request.headers.get('content-length');
  if (request.body === null || declared === '0') return {};
  const header = request.headers.get('content-type');
  // The usual header as it is (no split, trim and lower-casing of it per request).
  const type = header === 'application/json' ? header : (header ?? '').split(';')[0]!.trim().toLowerCase();
  if (!JSON_TYPE_RE.test(type)) {
    throw new AppError(
      'request.unsupported_media_type',
      `Send the body as JSON with "Content-Type: application/json"${type ? ` (got ${type.slice(0, 100)})` : ''}.`,
      { details: { content_type: type.slice(0, 100) || null, accepted: ['application/json'] } },
    );
  }
  // A declared length is the length (HTTP framing), and onRequest already refused one over the
  // limit: read it in one go. Only a chunked body is read chunk by chunk, counting as it goes
  // (the stream reader cost ~8 % of a create in bench/create's profile).
  const bytes = declared !== null && Number(declared) <= MAX_BODY_BYTES ? await request.bytes() : await readCapped(request.body);
  if (bytes === null || bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new AppError('request.malformed_json', 'The request body is not valid UTF-8.');
  }
  if (text.trim() === '') return {};
  const depth = nestingExceeds(text, MAX_JSON_DEPTH);
  if (depth) {
    throw new AppError('request.invalid_param', `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`, {
      details: { max_depth: MAX_JSON_DEPTH },
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('request.malformed_json', 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('request.invalid_param', 'The request body must be a JSON object.', {
      details: { received: Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value },
    });
  }
  // A "__proto__" key is in the text as such, or spelled with a \u escape: without either, no walk.
  const smuggled = text.includes('__proto__') || text.includes('\\u') ? protoKeyPath(value, '') : null;
  if (smuggled !== null) {
    throw new AppError('request.invalid_param', `"__proto__" is not an accepted key (${smuggled}).`, { param: smuggled });
  }
  return value as Record<string, unknown>;
}

/**
 * True when brackets outside strings nest deeper than `max`. One linear pass over the text,
 * before JSON.parse: thousands of levels would otherwise cost validation (and stack) per level.
 */
export function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** The dotted path of the first own "__proto__" key (JSON.parse makes it an own key), or null. */
function protoKeyPath(v: unknown, path: string): string | null {
  if (typeof v !== 'object' || v === null) return null;
  if (!Array.isArray(v) && Object.hasOwn(v, '__proto__')) return path ? `${path}.__proto__` : '__proto__';
  for (const [k, child] of Object.entries(v)) {
    const found = protoKeyPath(child, path ? `${path}.${k}` : k);
    if (found !== null) return found;
  }
  return null;
}

/**
 * beforeHandle of operations that take no body: an empty body or {} only, so a misplaced field is
 * a 400 naming it (a schema would make the OpenAPI document demand a body).
 */
export function noBody(body: unknown): undefined {
  if (body === undefined) return undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('request.invalid_param', 'This operation takes no body, or {}.');
  }
  const key = Object.keys(body)[0];
  if (key === undefined) return undefined;
  // An empty key is still named: a param is never the empty string.
  const param = key === '' ? '""' : key;
  throw new AppError('request.invalid_param', `${param}: Unexpected property (this operation takes no body).`, { param });
}
