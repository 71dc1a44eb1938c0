/**
 * The MCP tools' input and output schemas. `answer` and `context` reuse the published JSON Schemas of
 * `/v1/answer` and `/v2/context` (`http/schemas.ts`), so a tool and its REST route accept and return the
 * same shapes; `search` has its own, written here as JSON Schema too. The SDK wants zod, so each is
 * converted once at load with `z.fromJSONSchema` (zod 4): one source of truth, no hand-copied zod twins.
 */
import { z } from 'zod';
import { ANSWER_REQUEST_SCHEMA, ANSWER_RESPONSE_SCHEMA, CONTEXT_REQUEST_SCHEMA, CONTEXT_RESPONSE_SCHEMA, MKU_RESULT_SCHEMA, PATIENT_CONTEXT_SCHEMA } from '../http/schemas';

const str = { type: 'string' } as const;
const strOrNull = { type: ['string', 'null'] } as const;
const strList = { type: 'array', items: str } as const;

export const SEARCH_DEFAULTS = { limit: 10, max_chunks_per_unit: 3 } as const;

export const SEARCH_INPUT_SCHEMA = {
  type: 'object',
  required: ['query'],
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 8000 },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: SEARCH_DEFAULTS.limit, description: 'Units returned: source recommendations (documents).' },
    max_chunks_per_unit: { type: 'integer', minimum: 1, maximum: 20, default: SEARCH_DEFAULTS.max_chunks_per_unit, description: 'MKU extracts (verbatims) listed per unit; safety-relevant ones are always listed.' },
    patient_ehr: { ...PATIENT_CONTEXT_SCHEMA, description: 'Optional patient context, as in /v2/context: its safety facts add safety-relevant MKUs (never dropped).' },
  },
} as const;

// An MKU as listed inside a unit: the /v2/context MKU without its provenance (hoisted to the unit) but
// with where in the document it comes from.
const { provenance: _provenance, ...MKU_FIELDS } = MKU_RESULT_SCHEMA.properties;
const SEARCH_CHUNK_SCHEMA = { ...MKU_RESULT_SCHEMA, properties: { ...MKU_FIELDS, section_titles: strList, pages: strList } } as const;

export const SEARCH_OUTPUT_SCHEMA = {
  type: 'object',
  required: ['query', 'units', 'safety_items', 'conflicts', 'cross_refs', 'fallback', 'judge'],
  properties: {
    query: str,
    units: {
      type: 'array',
      items: {
        type: 'object',
        required: ['doc_id', 'doc_title', 'chunks'],
        properties: {
          doc_id: { ...strOrNull, description: 'null: MKUs whose document could not be joined.' },
          doc_title: strOrNull,
          doc_url: strOrNull,
          year: { type: ['integer', 'null'] },
          source_name: strOrNull,
          source_org: strOrNull,
          chunks: { type: 'array', items: SEARCH_CHUNK_SCHEMA },
        },
      },
    },
    safety_items: CONTEXT_RESPONSE_SCHEMA.properties.safety_items,
    conflicts: CONTEXT_RESPONSE_SCHEMA.properties.conflicts,
    cross_refs: CONTEXT_RESPONSE_SCHEMA.properties.cross_refs,
    fallback: CONTEXT_RESPONSE_SCHEMA.properties.fallback,
    judge: { type: 'object', required: ['score', 'sufficient'], properties: { score: { type: 'number' }, sufficient: { type: 'boolean' } } },
  },
} as const;

/** `context` takes the /v2/context body, with `patient_ehr` optional (absent = `{}`: no patient facts). */
const { $id: _contextId, ...CONTEXT_INPUT } = CONTEXT_REQUEST_SCHEMA;
export const CONTEXT_INPUT_SCHEMA = { ...CONTEXT_INPUT, required: ['query'] } as const;
const { $id: _contextOutId, ...CONTEXT_OUTPUT_SCHEMA } = CONTEXT_RESPONSE_SCHEMA;
const { $id: _answerId, ...ANSWER_INPUT_SCHEMA } = ANSWER_REQUEST_SCHEMA;
const { $id: _answerOutId, ...ANSWER_OUTPUT_SCHEMA } = ANSWER_RESPONSE_SCHEMA;

const toZod = (schema: object) => z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);

/** The zod schemas `registerTool` takes (converted once). */
export const TOOL_SCHEMAS = {
  search: { input: toZod(SEARCH_INPUT_SCHEMA), output: toZod(SEARCH_OUTPUT_SCHEMA) },
  answer: { input: toZod(ANSWER_INPUT_SCHEMA), output: toZod(ANSWER_OUTPUT_SCHEMA) },
  context: { input: toZod(CONTEXT_INPUT_SCHEMA), output: toZod(CONTEXT_OUTPUT_SCHEMA) },
};
