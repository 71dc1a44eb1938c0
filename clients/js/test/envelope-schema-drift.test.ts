/**
 * The client's envelope types cannot drift from the hub's: the key lists the compiler ties to the
 * client's types (src/envelope-keys.ts) must equal the `properties` of the hub's JSON Schemas
 * (server/answer/envelope-schema.ts, also the components of /openapi.json), recursively for every
 * nested object the schema describes. A field the hub gains or loses fails here, naming its path.
 */
import { ENVELOPE_SCHEMAS } from '../../../server/answer/envelope-schema';
import { ENVELOPE_KEY_SHAPES, shapeOf, type KeyShape } from '../src/envelope-keys.js';
import type { ReferenceUsage } from '../src/envelope.js';

type Schema = { properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; type?: unknown };

/** The object schema a property holds: through `anyOf` (nullable) and array `items`; null for a leaf. */
function objectSchema(schema: Schema): Schema | null {
  if (schema.anyOf) {
    const objects = schema.anyOf.map(objectSchema).filter((s): s is Schema => s !== null);
    return objects[0] ?? null;
  }
  if (schema.items) return objectSchema(schema.items);
  return schema.properties ? schema : null;
}

/** Every disagreement between a client shape and a schema, as `path: what`. */
function drift(shape: KeyShape, schema: Schema, path: string): string[] {
  const out: string[] = [];
  const schemaKeys = Object.keys(schema.properties ?? {});
  for (const key of schemaKeys) if (!shape.keys.includes(key)) out.push(`${path}.${key}: in the hub's schema, unknown to the client`);
  for (const key of shape.keys) if (!schemaKeys.includes(key)) out.push(`${path}.${key}: typed by the client, gone from the hub's schema`);
  for (const key of schemaKeys) {
    const nested = objectSchema(schema.properties![key]);
    const child = shape.nested[key];
    if (nested && !child) out.push(`${path}.${key}: an object in the hub's schema the client types without its keys`);
    else if (!nested && child) out.push(`${path}.${key}: typed as an object by the client, not one in the hub's schema`);
    else if (nested && child) out.push(...drift(child, nested, `${path}.${key}`));
  }
  return out;
}

describe('client envelope types against the hub envelope schemas', () => {
  test('the client types exactly the envelopes the hub publishes', () => {
    expect(Object.keys(ENVELOPE_KEY_SHAPES).sort()).toEqual(Object.keys(ENVELOPE_SCHEMAS).sort());
  });

  test.each(Object.keys(ENVELOPE_SCHEMAS))('%s: same keys at every level', (name) => {
    const shape = ENVELOPE_KEY_SHAPES[name as keyof typeof ENVELOPE_KEY_SHAPES];
    expect(drift(shape, ENVELOPE_SCHEMAS[name as keyof typeof ENVELOPE_SCHEMAS] as Schema, name)).toEqual([]);
  });

  test('the comparison notices a gained, a lost and a nested field', () => {
    const product = ENVELOPE_SCHEMAS.ProductEnvelope as unknown as Schema;
    const gained = { ...product, properties: { ...product.properties, verdict: { type: 'string' } } };
    expect(drift(ENVELOPE_KEY_SHAPES.ProductEnvelope, gained, 'P')).toEqual(["P.verdict: in the hub's schema, unknown to the client"]);
    const { model: _model, ...rest } = product.properties!;
    expect(drift(ENVELOPE_KEY_SHAPES.ProductEnvelope, { ...product, properties: rest }, 'P')).toEqual(['P.model: typed by the client, gone from the hub\'s schema']);
    const refs = product.properties!.references;
    const usage = refs.items!.properties!.usage;
    const nested = {
      ...product,
      properties: { ...product.properties, references: { ...refs, items: { ...refs.items, properties: { ...refs.items!.properties, usage: { ...usage, items: { ...usage.items, properties: { ...usage.items!.properties, offset: { type: 'integer' } } } } } } } },
    };
    expect(drift(ENVELOPE_KEY_SHAPES.ProductEnvelope, nested, 'P')).toEqual(["P.references.usage.offset: in the hub's schema, unknown to the client"]);
  });

  test('a key list that leaves out a key of its type does not compile', () => {
    // @ts-expect-error `path` is missing: shapeOf refuses an incomplete list (tsc --noEmit checks this file)
    const incomplete = shapeOf<ReferenceUsage>()(['location', 'text']);
    // @ts-expect-error `offset` is not a key of ReferenceUsage
    const foreign = shapeOf<ReferenceUsage>()(['location', 'text', 'path', 'offset']);
    expect(incomplete.keys).toHaveLength(2);
    expect(foreign.keys).toHaveLength(4);
  });
});
