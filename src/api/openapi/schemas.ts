// TypeBox route schemas -> OpenAPI 3.1 schemas (JSON Schema 2020-12, which TypeBox already
// writes). Two rewrites: a schema with a `title` is a named component, referenced by `$ref`
// wherever it appears, so a generated client gets one type per concept (PaymentIntent, Error …);
// a string-keyed Record becomes `additionalProperties`, which every generator reads as a map.
// `docSchema` (a TypeBox option) replaces what the document says about a value whose wire form
// the server checks by hand, e.g. `limit`: a string on the wire, an integer 1..100 in meaning.

export type JsonSchema = { [key: string]: unknown };

const ANY_KEY = '^(.*)$';
const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

export class SchemaNames {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly texts = new Map<string, string>();

  /** The schema as the document says it, named parts moved to `components.schemas`. */
  convert(schema: unknown): JsonSchema {
    // JSON round trip: TypeBox's symbols (Kind, Optional) and Elysia's functions go.
    return this.walk(JSON.parse(JSON.stringify(schema))) as JsonSchema;
  }

  private walk(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.walk(n));
    if (!isObject(node)) return node;
    if (isObject(node.docSchema)) return this.walk(node.docSchema);
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === 'properties' || k === '$defs' ? this.walkMap(v) : this.walk(v);
    const pattern = out.patternProperties;
    if (isObject(pattern) && Object.keys(pattern).length === 1 && ANY_KEY in pattern && out.properties === undefined) {
      out.additionalProperties = pattern[ANY_KEY];
      delete out.patternProperties;
    }
    return typeof out.title === 'string' ? this.name(out.title, out) : out;
  }

  private walkMap(v: unknown): unknown {
    if (!isObject(v)) return v;
    return Object.fromEntries(Object.entries(v).map(([k, s]) => [k, this.walk(s)]));
  }

  /** One title, one schema: two different schemas with the same title are a bug in the models. */
  private name(title: string, schema: JsonSchema): JsonSchema {
    const text = JSON.stringify(schema);
    const seen = this.texts.get(title);
    if (seen !== undefined && seen !== text) throw new Error(`OpenAPI: two different schemas are named ${title}`);
    this.texts.set(title, text);
    this.schemas[title] = schema;
    return { $ref: `#/components/schemas/${title}` };
  }
}
