// fast-check arbitraries from the OpenAPI document's own schemas: values that follow a schema
// (so a fuzzed request gets past validation and reaches the verbs), and mutations of them (a
// required field dropped, an unknown one added, one value of the wrong type) that must not.
import fc from 'fast-check';

type Schema = Record<string, any>;

/** Names that have broken lookups on plain objects before (issue 8). */
export const PROTO_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

export const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(...PROTO_NAMES, '', ' ', '0', '-1', '1e309', 'NaN', 'null', 'true', '%00', '../..', '\u0000', '\ud800', '0x', '1.'),
  fc.string({ unit: fc.constantFrom('9', '.', '0', 'e', '-'), maxLength: 200 }),
);

export function arbitraryFor(schema: Schema, components: Record<string, Schema>, depth = 0): fc.Arbitrary<unknown> {
  if (schema.$ref) return arbitraryFor(components[String(schema.$ref).split('/').pop()!]!, components, depth);
  if (schema.anyOf) return fc.oneof(...(schema.anyOf as Schema[]).map((s) => arbitraryFor(s, components, depth)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  // The document's examples are valid values: mostly those, so requests get past validation.
  const examples = schema.examples?.length ? [{ weight: 5, arbitrary: fc.constantFrom(...(schema.examples as unknown[])) }] : [];
  switch (schema.type) {
    case 'string':
      return fc.oneof(...examples, fc.string({ maxLength: Math.min(schema.maxLength ?? 64, 64) }));
    case 'integer':
      return fc.oneof(...examples, fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 10_000_000 }));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'object': {
      if (depth > 3) return fc.constant({});
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(props).length === 0) {
        const value = schema.additionalProperties && schema.additionalProperties !== true ? schema.additionalProperties : {};
        return fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...PROTO_NAMES)), arbitraryFor(value, components, depth + 1), { maxKeys: 4 });
      }
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, arbitraryFor(s, components, depth + 1)]));
      return fc.record(model, { requiredKeys: (schema.required ?? []) as string[] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A value of the schema, or that value broken in one way. */
export function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const obj = valid.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v));
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    // One field's value replaced by anything JSON can say.
    fc.tuple(obj, fc.nat(), fc.jsonValue({ maxDepth: 3 })).map(([o, n, v]) => {
      const keys = Object.keys(o);
      return keys.length === 0 ? { ...o, x: v } : { ...o, [keys[n % keys.length]!]: v };
    }),
    // One field dropped.
    fc.tuple(obj, fc.nat()).map(([o, n]) => {
      const keys = Object.keys(o);
      const copy = { ...o };
      if (keys.length > 0) delete copy[keys[n % keys.length]!];
      return copy;
    }),
    // An unknown field, possibly named after a prototype member.
    fc.tuple(obj, fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom(...PROTO_NAMES)), fc.jsonValue({ maxDepth: 1 })).map(([o, k, v]) => ({ ...o, [k]: v })),
    // One field set to a hostile string.
    fc.tuple(obj, fc.nat(), nastyString).map(([o, n, v]) => {
      const keys = Object.keys(o);
      return keys.length === 0 ? o : { ...o, [keys[n % keys.length]!]: v };
    }),
    fc.jsonValue({ maxDepth: 4 }),
  );
}
