// Schema pieces shared by the route models: they validate and they write the OpenAPI document
// (see openapi/schemas.ts for `title` and `docSchema`).
import { FormatRegistry } from '@sinclair/typebox';
import { t } from 'elysia';

/** `limit`: a string on the wire (checked by hand, so "0", "101" and "abc" all name it); an integer in the document. */
export const LimitParam = t.String({
  maxLength: 8,
  docSchema: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100 (empty = 20)' },
});

export const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()]);

/**
 * t.UnionEnum without its `default: values[0]`: Elysia fills defaults into missing fields (a
 * missing targetState became "confirmed", a missing `state` filter "created"), and in a response
 * the document would claim a default that means nothing. A `title` names it in the document.
 */
export function Enum<const T extends readonly [string, ...string[]]>(values: T, options: { description?: string; title?: string } = {}) {
  const { default: _unused, ...schema } = t.UnionEnum(values, options);
  return schema as unknown as ReturnType<typeof t.UnionEnum<T>>;
}
export const Iso = t.String({ format: 'date-time', description: 'UTC ISO 8601 with milliseconds' });

// `date-time` is only in our responses (every Iso above), where each value is an instant we wrote
// with toISOString: checked as exactly that shape. Elysia's own check (three regular expressions,
// a quote strip and a Date parse, made for lenient request parsing) cost ~0.3-1 µs per value,
// three or more per intent rendered, on every response (bench/create). Replaces Elysia's entry in
// TypeBox's registry, which compiled checks look up at each call.
const ISO_INSTANT = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;
FormatRegistry.Set('date-time', (value) => ISO_INSTANT.test(value));
/** An id: its prefix and base62 characters. */
export const Id = (prefix: string, description?: string) => t.String({ pattern: `^${prefix}_[0-9A-Za-z]+$`, ...(description ? { description } : {}) });
/** A decimal amount in token units, normalised ("3.50" answers "3.5"). */
export const Amount = (description: string) => t.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description, examples: ['12.34'] });
/** An integer amount in the token's smallest unit, as a string (it can exceed 2^53). */
export const BaseUnits = t.String({ pattern: '^[0-9]+$', description: "Amount in the token's smallest unit (integer string)", examples: ['12340000'] });
export const Chain = t.String({ description: 'CAIP-2 chain id', examples: ['eip155:84532'] });

