/**
 * JSON Schemas (2020-12) of the envelopes in envelope.ts. The same constants validate every envelope
 * the test suites see (test/support/envelope-recorder.ts) and are the envelope components of
 * /openapi.json, so the document, the tests and the types cannot drift apart unnoticed.
 *
 * `additionalProperties: false` wherever the hub alone decides the keys, so a key the types do not
 * know fails the suites. Open (extra keys allowed) only where the content is passed through or owned
 * by a versioned sub-schema with its own module: table blocks (the writer's cells), the context
 * summary (`context_view.v1`), warnings and issues of the checks, the agreement and In-Depth gate
 * reports. Sub-schemas are plain objects reused inline (no `$ref`), so they read the same in Ajv and
 * in the OpenAPI document.
 */

const string = { type: 'string' } as const;
const integer = { type: 'integer' } as const;
const openObject = { type: 'object' } as const;
const nullable = <T extends object>(schema: T) => ({ anyOf: [{ type: 'null' }, schema] }) as const;

const USAGE = {
  type: 'object',
  required: ['location', 'text'],
  properties: {
    location: { enum: ['answer', 'block', 'indepth', 'answer_review_draft', 'indepth_review_draft'] },
    text: string,
    path: string,
  },
  additionalProperties: false,
} as const;

/** §8: a reference, resolved against the complete ledger or not. */
export const REFERENCE_SCHEMA = {
  type: 'object',
  required: ['index', 'resolutionStatus', 'usage', 'groundingStatus', 'grounded'],
  properties: {
    index: integer,
    sourceId: string,
    source: string,
    resourceType: string,
    resourceUuid: { type: ['string', 'null'] },
    date: { type: ['string', 'null'] },
    title: string,
    sourceText: string,
    provenance: { type: 'object', additionalProperties: string },
    resolutionStatus: { enum: ['resolved', 'unresolved'] },
    usage: { type: 'array', items: USAGE },
    groundingStatus: { enum: ['checking', 'verified', 'unsupported', 'mixed', 'unchecked'] },
    grounded: { type: ['boolean', 'null'] },
    groundingChecks: { type: 'array', items: openObject },
    groundingScope: { enum: ['record', 'source_set'] },
    groundingGroup: { type: 'array', items: integer },
    support: string,
  },
  additionalProperties: false,
} as const;

/** §3.9: a table block; the writer's blocks pass through the table contract, so extra keys may ride along. */
export const TABLE_BLOCK_SCHEMA = {
  type: 'object',
  required: ['kind', 'title', 'columns', 'rows'],
  properties: {
    kind: { const: 'table' },
    title: string,
    columns: { type: 'array', items: { type: 'object', required: ['key', 'label'], properties: { key: string, label: string } } },
    rows: {
      type: 'array',
      items: {
        type: 'object',
        required: ['cells'],
        properties: { cells: { type: 'object', additionalProperties: { type: 'object', required: ['text'], properties: { text: string, refs: { type: 'array', items: integer } } } } },
      },
    },
  },
} as const;

const FINDING = {
  type: 'object',
  required: ['check', 'where', 'status', 'says'],
  properties: { check: string, where: { anyOf: [{ const: 'answer' }, integer] }, status: string, says: string },
  additionalProperties: false,
} as const;

/** §7.8: a graded level, or (`policies.confidence: findings`) `level: null` with the findings behind it. */
const CONFIDENCE_LEVEL = {
  type: 'object',
  required: ['level', 'note'],
  properties: { level: { enum: ['green', 'yellow', 'red', null] }, note: string, findings: { type: 'array', items: FINDING } },
  additionalProperties: false,
} as const;

const CONFIDENCE = {
  type: 'object',
  required: ['answer'],
  properties: { answer: CONFIDENCE_LEVEL, in_depth: CONFIDENCE_LEVEL },
  additionalProperties: false,
} as const;

/** §7.4. */
export const ANSWER_VALIDATION_SCHEMA = {
  type: 'object',
  required: ['status', 'label', 'summary', 'issues'],
  properties: {
    status: { enum: ['checking', 'checked', 'edited', 'needs_review', 'unavailable'] },
    label: string,
    summary: string,
    issues: { type: 'array', items: openObject },
    completedAt: { type: 'string', description: 'ISO 8601 time the status settled.' },
    originalAnswer: string,
    originalReferences: { type: 'array', items: REFERENCE_SCHEMA },
    originalBlocks: { type: 'array', items: TABLE_BLOCK_SCHEMA },
  },
  additionalProperties: false,
} as const;

/** §6.3: `temporal_gate.v1`, with how the engine `applied` it. */
export const TEMPORAL_GATE_SCHEMA = {
  type: 'object',
  required: ['schema_version', 'mode', 'status', 'checks', 'patch_answer', 'patch_citations'],
  properties: {
    schema_version: { const: 'temporal_gate.v1' },
    mode: { enum: ['off', 'warn', 'enforce'] },
    status: { enum: ['pass', 'warn', 'fail', 'not_applicable'] },
    checks: { type: 'array', items: openObject },
    patch_answer: { type: ['string', 'null'] },
    patch_citations: { type: 'array', items: integer },
    applied: { enum: ['none', 'patch', 'fallback'] },
  },
  additionalProperties: false,
} as const;

/** §3.5: In-Depth state, only ever under `inDepth`. */
export const IN_DEPTH_SCHEMA = {
  type: 'object',
  required: ['status', 'answer', 'error'],
  properties: {
    status: { enum: ['pending', 'complete', 'needs_review', 'failed'] },
    answer: string,
    error: string,
    validation: nullable(openObject),
    errorCode: string,
    mandatorySourceIds: { type: 'array', items: string },
    reviewDraft: string,
    reviewReferences: { type: 'array', items: REFERENCE_SCHEMA },
  },
  additionalProperties: false,
} as const;

const SAFETY_STATUS = { enum: ['checked', 'limited', 'unavailable'] } as const;

/** §9.6: `drug_safety.v1`. */
export const DRUG_SAFETY_SCHEMA = {
  type: 'object',
  required: ['schema_version', 'status', 'warnings', 'package', 'coverage', 'identity_confidence', 'issues'],
  properties: {
    schema_version: { const: 'drug_safety.v1' },
    status: SAFETY_STATUS,
    warnings: { type: 'array', items: openObject },
    package: nullable(openObject),
    coverage: openObject,
    identity_confidence: { enum: ['structured', 'inline_text', null] },
    issues: { type: 'array', items: openObject },
  },
  additionalProperties: false,
} as const;

const PRODUCT_PROPERTIES = {
  answer: string,
  references: { type: 'array', items: REFERENCE_SCHEMA },
  blocks: { type: 'array', items: TABLE_BLOCK_SCHEMA },
  model: string,
  confidence: CONFIDENCE,
  answerValidation: nullable(ANSWER_VALIDATION_SCHEMA),
  temporalGate: nullable(TEMPORAL_GATE_SCHEMA),
  context: nullable({ type: 'object', required: ['schema_version'], properties: { schema_version: { const: 'context_view.v1' } } }),
  safetyStatus: SAFETY_STATUS,
  safetyWarnings: { type: 'array', minItems: 1, items: openObject },
  safetyCheck: DRUG_SAFETY_SCHEMA,
  drug_safety: DRUG_SAFETY_SCHEMA,
  agreement: openObject,
  inDepth: IN_DEPTH_SCHEMA,
} as const;

const PRODUCT_REQUIRED = ['answer', 'references', 'blocks', 'model', 'confidence', 'answerValidation', 'temporalGate', 'context', 'safetyStatus', 'safetyCheck', 'drug_safety'] as const;

/** §3.4: the data of every staged product event (`answer_done` … `done`). */
export const PRODUCT_ENVELOPE_SCHEMA = {
  $id: 'ProductEnvelope',
  description: 'Data of every staged product event (answer_done, answer_validation, indepth_pending, indepth_done, indepth_error, done): the complete current state.',
  type: 'object',
  required: PRODUCT_REQUIRED,
  properties: PRODUCT_PROPERTIES,
  additionalProperties: false,
} as const;

/** §3.6: a blocking product response's message content: the final envelope plus `citations`. */
export const BLOCKING_PRODUCT_ENVELOPE_SCHEMA = {
  $id: 'BlockingProductEnvelope',
  description: 'choices[0].message.content (as JSON) of a blocking product turn: the final envelope plus citations recomputed from the references.',
  type: 'object',
  required: [...PRODUCT_REQUIRED, 'citations'],
  properties: { ...PRODUCT_PROPERTIES, citations: { type: 'array', items: integer } },
  additionalProperties: false,
} as const;

/** §3.8: the result of a leg or plain profile (`bare`, `review`, `indepth`). */
export const LEG_ENVELOPE_SCHEMA = {
  $id: 'LegEnvelope',
  description: 'choices[0].message.content (as JSON) of a low-level leg or a non-product profile (output modes bare, review, indepth).',
  type: 'object',
  required: ['answer', 'citations', 'blocks'],
  properties: {
    answer: string,
    citations: { type: 'array', items: integer },
    blocks: { type: 'array', items: TABLE_BLOCK_SCHEMA },
    safetyStatus: SAFETY_STATUS,
    references: { type: 'array', items: REFERENCE_SCHEMA },
    confidence: { type: 'object', required: ['answer'], properties: { answer: CONFIDENCE_LEVEL }, additionalProperties: false },
    answerValidation: ANSWER_VALIDATION_SCHEMA,
    temporalGate: TEMPORAL_GATE_SCHEMA,
  },
  additionalProperties: false,
} as const;

/** §3.1: `event: error` data. */
export const ERROR_EVENT_SCHEMA = {
  $id: 'ErrorEventData',
  description: 'Data of a staged stream’s terminal `event: error`.',
  type: 'object',
  required: ['code', 'source', 'message'],
  properties: { code: string, source: string, message: string, model: {}, expected_file: {} },
  additionalProperties: false,
} as const;

/** The envelope components of /openapi.json. */
export const ENVELOPE_SCHEMAS = {
  ProductEnvelope: PRODUCT_ENVELOPE_SCHEMA,
  BlockingProductEnvelope: BLOCKING_PRODUCT_ENVELOPE_SCHEMA,
  LegEnvelope: LEG_ENVELOPE_SCHEMA,
  ErrorEventData: ERROR_EVENT_SCHEMA,
} as const;
