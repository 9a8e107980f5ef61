// Schema pieces shared by the route models: they validate and they write the OpenAPI document
// (see openapi/schemas.ts for `title` and `docSchema`).
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
/** An id: its prefix and base62 characters. */
export const Id = (prefix: string, description?: string) => t.String({ pattern: `^${prefix}_[0-9A-Za-z]+$`, ...(description ? { description } : {}) });
/** A decimal amount in token units, normalised ("3.50" answers "3.5"). */
export const Amount = (description: string) => t.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description, examples: ['12.34'] });
/** An integer amount in the token's smallest unit, as a string (it can exceed 2^53). */
export const BaseUnits = t.String({ pattern: '^[0-9]+$', description: "Amount in the token's smallest unit (integer string)", examples: ['12340000'] });
export const Chain = t.String({ description: 'CAIP-2 chain id', examples: ['eip155:84532'] });

