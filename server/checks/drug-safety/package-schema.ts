/**
 * JSON Schemas of the drug-safety sources (hub-contract §9.1, §9.6), compiled once with ajv. The
 * package envelope is strict — identity, version, provenance and review state must be declared, or
 * the package is treated as absent. Entries are checked one by one (a bad entry is skipped, a bad
 * age band dropped alone), so one malformed rule cannot erase the rest of a package.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { compileConstant, constantSchemaAjv } from '../../json-schemas';
import { REVIEW_STATES } from './types';

/** ATC levels 2–5 (`M01`, `M01A`, `M01AE`, `M01AE01`); never a one-letter anatomical group. */
export const ATC_PREFIX = /^[A-Z]\d{2}(?:[A-Z](?:[A-Z](?:\d{2})?)?)?$/;
/** A level-5 substance code. */
export const ATC_SUBSTANCE = /^[A-Z]\d{2}[A-Z]{2}\d{2}$/;

const text = { type: 'string', minLength: 1 } as const;

export const PACKAGE_SCHEMA = {
  $id: 'drug_safety_package.v1',
  type: 'object',
  required: ['id', 'version', 'review_state', 'provenance', 'entries'],
  properties: {
    schema_version: { const: 'drug_safety_package.v1' },
    id: text,
    version: text,
    review_state: { enum: [...REVIEW_STATES] },
    provenance: {
      type: 'object',
      required: ['authority'],
      properties: { authority: text, license: { type: 'string' }, url: { type: 'string' }, note: { type: 'string' } },
    },
    description: { type: 'string' },
    source: { type: 'string' },
    entries: { type: 'array', items: { type: 'object' } },
  },
} as const;

export const ENTRY_SCHEMA = {
  $id: 'drug_safety_entry.v1',
  type: 'object',
  required: ['id', 'name'],
  properties: { id: text, name: text, drugClass: { type: ['string', 'null'] }, source: { type: ['string', 'null'] } },
} as const;

const wholeYears = { type: 'integer', minimum: 0 } as const;
const nonNegative = { type: 'number', minimum: 0 } as const;

export const AGE_BAND_SCHEMA = {
  $id: 'drug_safety_age_band.v1',
  type: 'object',
  required: ['minYears', 'maxYears', 'maxDailyDoseMg'],
  properties: {
    minYears: wholeYears,
    maxYears: wholeYears,
    mgPerKgMin: { anyOf: [nonNegative, { type: 'null' }] },
    mgPerKgMax: { anyOf: [nonNegative, { type: 'null' }] },
    maxDailyDoseMg: nonNegative,
  },
} as const;

export const CROSS_REACTIVITY_SCHEMA = {
  $id: 'drug_safety_cross_reactivity.v1',
  type: 'object',
  required: ['groups'],
  properties: {
    groups: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'atcPrefixes'],
        properties: { name: text, note: { type: ['string', 'null'] }, atcPrefixes: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
} as const;

// Not strict: the schemas leave room for extra fields curators add (notes, review metadata).
const ajv = constantSchemaAjv({ allErrors: false, strict: false });

export const validatePackage: ValidateFunction = compileConstant(ajv, PACKAGE_SCHEMA);
export const validateEntry: ValidateFunction = compileConstant(ajv, ENTRY_SCHEMA);
export const validateAgeBand: ValidateFunction = compileConstant(ajv, AGE_BAND_SCHEMA);
export const validateCrossReactivity: ValidateFunction = compileConstant(ajv, CROSS_REACTIVITY_SCHEMA);

/** One line naming where a document broke the schema (`/entries: must be array`). */
export function schemaError(errors: ErrorObject[] | null | undefined): string {
  const first = errors?.[0];
  if (!first) return 'does not match the schema';
  return `${first.instancePath || '/'}: ${first.message ?? 'is invalid'}`;
}
