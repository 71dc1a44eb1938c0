/** Ajv validators of the envelope schemas (server/answer/envelope-schema.ts), compiled once per test file. */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { compileConstant, constantSchemaAjv } from '../../server/json-schemas';
import { ENVELOPE_SCHEMAS } from '../../server/answer/envelope-schema';

export type EnvelopeKind = keyof typeof ENVELOPE_SCHEMAS;

const ajv = constantSchemaAjv({ allErrors: true, strict: false });
const validators = Object.fromEntries(Object.entries(ENVELOPE_SCHEMAS).map(([kind, schema]) => [kind, compileConstant(ajv, schema)])) as Record<EnvelopeKind, ValidateFunction>;

/** `path: message` of every violation of `kind`'s schema by `value`; empty when it conforms. */
export function envelopeViolations(kind: EnvelopeKind, value: unknown): string[] {
  const validate = validators[kind];
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.keyword === 'additionalProperties' ? ` '${String((e.params as { additionalProperty?: string }).additionalProperty)}'` : ''}`);
}
