/**
 * Ajv for the hub's own schemas, which are constants in its source. Checking a schema against the JSON
 * Schema meta-schema makes every Ajv instance compile the meta-schemas (about 2.4 MB of resident memory
 * per instance here, and the hub has half a dozen instances with different options), so these instances
 * skip that check at run time; every schema compiled through `compileConstant` is recorded instead, and a
 * unit test (test/unit/json-schemas.test.ts) checks each against its meta-schema.
 */
import Ajv, { type Options, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';

type Draft = '2020-12' | 'draft-07';

const compiled: Array<{ draft: Draft; schema: object }> = [];
const drafts = new WeakMap<Ajv, Draft>();

/** An Ajv instance (JSON Schema 2020-12 unless `draft-07`) for constant schemas: no meta-schema check. */
export function constantSchemaAjv(opts: Options, draft: Draft = '2020-12'): Ajv {
  const ajv = draft === '2020-12' ? new Ajv2020({ ...opts, validateSchema: false }) : new Ajv({ ...opts, validateSchema: false });
  drafts.set(ajv, draft);
  return ajv;
}

/** Compiles a constant schema with an instance from constantSchemaAjv, recording it for the meta-schema test. */
export function compileConstant<T = unknown>(ajv: Ajv, schema: object): ValidateFunction<T> {
  compiled.push({ draft: drafts.get(ajv) ?? '2020-12', schema });
  return ajv.compile<T>(schema);
}

/** Every schema compiled so far, with its draft (for the meta-schema test). */
export function compiledConstantSchemas(): ReadonlyArray<{ draft: Draft; schema: object }> {
  return compiled;
}
