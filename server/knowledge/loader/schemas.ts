/**
 * JSON Schemas of the content lines, one per kind (the formats the README documents), compiled once by ajv.
 * Defaults are filled in by ajv (`useDefaults`), so a minimal line stays minimal.
 */
import type { ValidateFunction } from 'ajv';
import { compileConstant, constantSchemaAjv } from '../../json-schemas';

export const CONTENT_KINDS = ['sources', 'documents', 'sections', 'chunks', 'mkus', 'concepts', 'edges'] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];

const id = { type: 'string', minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$' };
const text = { type: 'string', minLength: 1 };
const nullableText = { type: ['string', 'null'], default: null };
const strings = { type: 'array', items: { type: 'string' }, default: [] };
const page = { anyOf: [{ type: 'string' }, { type: 'integer' }] };

const SCHEMAS: Record<ContentKind, object> = {
  sources: {
    type: 'object', additionalProperties: false, required: ['source_id', 'name', 'org'],
    properties: { source_id: { type: 'integer', minimum: 0 }, name: text, org: text },
  },
  documents: {
    type: 'object', additionalProperties: false, required: ['doc_id', 'title', 'source_id'],
    properties: {
      doc_id: id, title: text, url: nullableText, year: { type: ['integer', 'null'], default: null },
      reco_id: nullableText, source_id: { type: 'integer', minimum: 0 }, summary: nullableText, license: nullableText,
      lang: { type: 'string', minLength: 2, default: 'fr' },
    },
  },
  sections: {
    type: 'object', additionalProperties: false, required: ['id', 'doc_id'],
    properties: { id, doc_id: id, titles: strings, pages: { type: 'array', items: page, default: [] }, summary: nullableText },
  },
  chunks: {
    type: 'object', additionalProperties: false, required: ['chunk_id', 'section_id', 'text'],
    properties: { chunk_id: id, section_id: id, text, page: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }], default: null } },
  },
  mkus: {
    type: 'object', additionalProperties: false, required: ['chunk_id', 'verbatim'],
    properties: {
      id: { type: 'string', pattern: '^mku_.+_[0-9a-f]{12}$' },
      key: id,
      doc_id: id,
      chunk_id: id,
      verbatim: text,
      criteria: { type: 'string', default: '' },
      directive: { type: 'string', default: '' },
      mku_class: nullableText,
      population: strings,
      safety_critical: { type: 'boolean', default: false },
      reviewed: { type: 'boolean', default: false },
      evidence_grade: nullableText,
      strength: nullableText,
      lang: { type: 'string', minLength: 2 },
    },
  },
  concepts: {
    type: 'object', additionalProperties: false, required: ['id', 'label'],
    properties: {
      id, label: text, source: { type: 'string', minLength: 1, default: 'local' }, synonyms: strings,
      kind: { enum: ['drug', 'condition', 'population', 'allergy', 'procedure', 'other'], default: 'other' },
    },
  },
  edges: {
    type: 'object', additionalProperties: false, required: ['rel'],
    properties: {
      src: { type: 'string', minLength: 1 }, src_key: id, dst: { type: 'string', minLength: 1 }, dst_key: id,
      rel: { enum: ['TRIGGERS', 'RELATED', 'BROADER', 'CROSS_REF'] },
      props: { type: 'object', default: {} },
    },
    oneOf: [{ required: ['src'], not: { required: ['src_key'] } }, { required: ['src_key'], not: { required: ['src'] } }],
    anyOf: [{ required: ['dst'], not: { required: ['dst_key'] } }, { required: ['dst_key'], not: { required: ['dst'] } }],
    allOf: [
      {
        if: { properties: { rel: { const: 'TRIGGERS' } } },
        then: { properties: { props: { type: 'object', additionalProperties: false, properties: { role: { enum: ['criteria', 'directive'] }, weight: { type: 'number', exclusiveMinimum: 0 } } } } },
      },
      {
        if: { properties: { rel: { const: 'CROSS_REF' } } },
        // `required`: ajv fills the `props` default only after this branch is checked.
        then: { required: ['props'], properties: { props: { type: 'object', additionalProperties: false, required: ['stance'], properties: { stance: { enum: ['AGREE', 'DISAGREE', 'PARTIAL', 'LINEAGE'] }, note: { type: 'string' } } } } },
      },
    ],
  },
};

const ajv = constantSchemaAjv({ allErrors: false, useDefaults: true, strict: false }, 'draft-07');
const VALIDATORS = Object.fromEntries(CONTENT_KINDS.map((k) => [k, compileConstant(ajv, SCHEMAS[k])])) as Record<ContentKind, ValidateFunction>;

/** Validates (and fills defaults into) one parsed line; returns an error message or null. */
export function validateLine(kind: ContentKind, value: unknown): string | null {
  const validate = VALIDATORS[kind];
  if (validate(value)) return null;
  const e = validate.errors?.[0];
  if (!e) return 'invalid';
  if (e.keyword === 'required' && (e.params as { missingProperty: string }).missingProperty === 'props') {
    return 'a CROSS_REF edge needs props.stance (AGREE, DISAGREE, PARTIAL or LINEAGE)';
  }
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(line)';
  const extra = e.keyword === 'additionalProperties' ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'` : e.keyword === 'enum' ? `: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` : '';
  return e.keyword === 'oneOf' || e.keyword === 'anyOf' || e.keyword === 'not' ? 'an edge needs exactly one of src / src_key and one of dst / dst_key' : `${where} ${e.message}${extra}`;
}
