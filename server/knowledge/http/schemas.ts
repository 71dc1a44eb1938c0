/**
 * JSON Schemas of the four knowledge endpoints (knowledge-layer.md §1), used by ajv to validate requests
 * and by the hub's `/openapi.json` (decision 14), and by the tests to validate every response against the
 * published shape. Nested shapes are inlined constants so one object serves both without `$ref` plumbing.
 */
const str = { type: 'string' } as const;
const strOrNull = { type: ['string', 'null'] } as const;
const intOrNull = { type: ['integer', 'null'] } as const;
const strList = { type: 'array', items: str } as const;
const strListOrNull = { type: ['array', 'null'], items: str } as const;
const knob = (min: number, max: number) => ({ type: ['integer', 'null'], minimum: min, maximum: max }) as const;
const weight = { type: ['number', 'null'], minimum: 0 } as const;

export const PATIENT_CONTEXT_SCHEMA = {
  type: 'object',
  description: 'Send what is known. Safety-signal facts (treatments, allergies, terrain) are mapped to concepts eagerly.',
  properties: {
    sex: strOrNull,
    age: { type: ['integer', 'null'], minimum: 0, maximum: 150 },
    history: strListOrNull,
    active_problems: strListOrNull,
    allergies: strListOrNull,
    current_treatments: strListOrNull,
  },
} as const;

export const CONTEXT_OPTS_SCHEMA = {
  type: ['object', 'null'],
  description: 'null or an absent knob means the server default (reported in trace.config).',
  properties: {
    include_unreviewed: { type: ['boolean', 'null'], description: 'Refused (403) unless CTX_ALLOW_UNREVIEWED=true or ENV=test.' },
    mode: { type: ['string', 'null'], enum: ['full', 'fallback_only', null] },
    concept_sim_topk: knob(1, 100),
    mku_sim_topk: knob(1, 200),
    fallback_chunk_topk: knob(1, 100),
    intersection_multihop_depth: knob(0, 5),
    judge_sufficiency_cutoff: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    judge_enabled: { type: ['boolean', 'null'] },
    agent_enabled: { type: ['boolean', 'null'] },
    w_cosine: weight,
    w_overlap: weight,
    w_intersection: weight,
  },
} as const;

export const CONTEXT_REQUEST_SCHEMA = {
  $id: 'MkuContextRequest',
  type: 'object',
  required: ['query', 'patient_ehr'],
  properties: { query: { type: 'string', minLength: 1, maxLength: 8000 }, patient_ehr: PATIENT_CONTEXT_SCHEMA, opts: CONTEXT_OPTS_SCHEMA },
} as const;

const PATH_ENUM = { type: 'string', enum: ['R1_concept', 'R1_vector', 'R2', 'safety'] } as const;

export const PROVENANCE_SCHEMA = {
  type: 'object',
  description: 'Deterministic parent-doc join (FROM_CHUNK), never similarity.',
  required: ['doc_id', 'doc_title', 'source_name', 'source_org', 'section_titles', 'pages', 'section_summaries', 'degraded'],
  properties: {
    doc_id: str,
    doc_title: str,
    doc_url: strOrNull,
    reco_id: strOrNull,
    year: intOrNull,
    source_name: str,
    source_org: str,
    section_titles: strList,
    pages: strList,
    section_summaries: { ...strList, description: 'CONTEXT only — never cite as a source.' },
    doc_summary: { ...strOrNull, description: 'CONTEXT only — never cite as a source.' },
    degraded: { type: 'boolean' },
  },
} as const;

export const MKU_RESULT_SCHEMA = {
  type: 'object',
  required: ['id', 'verbatim', 'criteria', 'directive', 'score'],
  properties: {
    id: str,
    verbatim: { type: 'string', description: 'EXACT source text — the ONLY citable unit.' },
    criteria: str,
    directive: str,
    safety_critical: { type: 'boolean' },
    review: { type: 'boolean' },
    evidence_grade: strOrNull,
    strength: strOrNull,
    score: { type: 'number' },
    paths: { type: 'array', items: PATH_ENUM },
    tags: strList,
    provenance: PROVENANCE_SCHEMA,
  },
} as const;

const CONCEPT_REF = { type: 'object', required: ['id', 'label'], properties: { id: str, label: str, source: str } } as const;

export const CONTEXT_RESPONSE_SCHEMA = {
  $id: 'MkuContextResponse',
  type: 'object',
  required: ['query', 'mkus', 'trace'],
  properties: {
    query: str,
    answer: strOrNull,
    mkus: { type: 'array', items: MKU_RESULT_SCHEMA },
    safety_items: { ...strList, description: 'Safety-relevant MKU ids: addressed explicitly, never dropped.' },
    conflicts: { type: 'array', items: { type: 'object', required: ['description'], properties: { description: str, patient_factor: str, mku_id: str } } },
    cross_refs: {
      type: 'array',
      description: 'Lineage links are excluded.',
      items: { type: 'object', required: ['from_id', 'to_id', 'stance'], properties: { from_id: str, to_id: str, stance: { type: 'string', enum: ['AGREE', 'DISAGREE', 'PARTIAL'] } } },
    },
    fallback: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chunk_id', 'text', 'score'],
        properties: { chunk_id: str, text: str, score: { type: 'number' }, doc_title: str, doc_url: str, source_name: str, section_summary: str, doc_summary: str, tag: { type: 'string', const: 'non_adjudiqué' } },
      },
    },
    trace: {
      type: 'object',
      required: ['mode', 'include_unreviewed', 'paths_activated', 'judge_score', 'judge_sufficient', 'judge_cutoff', 'counts', 'config'],
      properties: {
        mode: { type: 'string', enum: ['full', 'fallback_only'] },
        include_unreviewed: { type: 'boolean' },
        paths_activated: { type: 'array', items: { type: 'string', enum: ['R1_concept', 'R1_vector', 'R2', 'safety', 'fallback'] } },
        judge_score: { type: 'number', minimum: 0, maximum: 1 },
        judge_sufficient: { type: 'boolean' },
        judge_cutoff: { type: 'number' },
        judge_rationale: str,
        judge_skipped: { type: 'boolean' },
        counts: { type: 'object', additionalProperties: { type: 'integer' } },
        query_concepts: { type: 'array', items: CONCEPT_REF },
        patient_concepts: { type: 'array', items: CONCEPT_REF },
        tags: strList,
        config: { type: 'object' },
        enrichment_degraded: { type: 'boolean' },
        stages: { type: 'array', description: 'One entry per stage that ran, in order (ids and counts only).', items: { type: 'object', required: ['stage', 't_ms', 'data'], properties: { stage: str, t_ms: { type: 'number' }, data: { type: 'object' } } } },
      },
    },
    tokens_in: intOrNull,
    tokens_out: intOrNull,
  },
} as const;

export const RETRIEVE_REQUEST_SCHEMA = {
  $id: 'RetrieveRequest',
  type: 'object',
  required: ['query'],
  description: 'No judge and no safety sweep on this endpoint (as Locus documents it): use /v2/context for safety items.',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 8000 },
    patient_ehr: { type: ['string', 'null'], maxLength: 100000, description: 'Free-text patient record.' },
    concept_k: { type: 'integer', minimum: 0, maximum: 20, default: 5 },
    chunk_k: { type: 'integer', minimum: 0, maximum: 50, default: 10, description: '0 disables the document path.' },
    mku_k: { type: 'integer', minimum: 0, maximum: 50, default: 12, description: '0 disables the MKU path.' },
    table_k: { type: 'integer', minimum: 0, maximum: 20, default: 5, description: 'Decision tables are not in the store yet: accepted, none returned.' },
    mku_weight: { type: 'number', minimum: 0, maximum: 1, default: 0.75 },
    use_cross_refs: { type: 'boolean', default: true },
    history: { type: 'array', maxItems: 50, items: { type: 'object', properties: { question: str, answer_short: str } } },
    deliberate: { type: 'boolean', default: false },
  },
} as const;

export const RETRIEVE_RESPONSE_SCHEMA = {
  $id: 'RetrieveResponse',
  type: 'object',
  required: ['query'],
  properties: {
    query: str,
    reformulated: str,
    ehr_summary: str,
    answer: { type: 'string', description: 'Markdown.' },
    answer_format: { type: 'string' },
    mkus: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'verbatim'],
        properties: {
          id: str,
          verbatim: str,
          criteria: str,
          directive: str,
          mku_class: strOrNull,
          population: strList,
          doc_id: str,
          doc_title: str,
          section_title: str,
          score: { type: 'number' },
          via: { type: 'string', enum: ['concept', 'vector', 'concept+vector', 'cross_ref'] },
        },
      },
    },
    chunks: { type: 'array', items: { type: 'object', required: ['id', 'text', 'score'], properties: { id: str, text: str, score: { type: 'number' }, doc_id: str, doc_title: str, section_title: str } } },
    cross_refs: { type: 'array', items: { type: 'object', required: ['id1', 'id2', 'polarity'], properties: { id1: str, id2: str, polarity: { type: 'string', enum: ['AGREE', 'DISAGREE', 'PARTIAL'] } } } },
    concepts: { type: 'array', items: { type: 'object', required: ['id'], properties: { id: str, label: str } } },
  },
} as const;

// The stream's `done` line carries the same body; a copy without `$id` so ajv registers that id once.
const { $id: _retrieveId, ...RETRIEVE_RESPONSE_BODY } = RETRIEVE_RESPONSE_SCHEMA;

/** One NDJSON line of `/v2/retrieve/stream`: a stage, or the terminal `done` / `error`. */
export const RETRIEVE_STREAM_LINE_SCHEMA = {
  $id: 'RetrieveStreamLine',
  oneOf: [
    { type: 'object', required: ['stage', 't_ms', 'data'], properties: { stage: { type: 'string', enum: ['query_maker', 'retrieval', 'deliberation', 'deliberation_judge', 'deliberation_probe', 'answer', 'drugs'] }, t_ms: { type: 'number' }, data: { type: 'object' } } },
    { type: 'object', required: ['stage', 'data'], properties: { stage: { const: 'done' }, data: RETRIEVE_RESPONSE_BODY } },
    { type: 'object', required: ['stage', 'error'], properties: { stage: { const: 'error' }, error: { type: 'object', required: ['code', 'message'], properties: { code: str, message: str } } } },
  ],
} as const;

export const ANSWER_REQUEST_SCHEMA = {
  $id: 'AnswerRequest',
  type: 'object',
  required: ['query'],
  properties: { query: { type: 'string', minLength: 1, maxLength: 8000 }, source_ids: { type: ['array', 'null'], maxItems: 1000, items: { type: 'integer' } } },
} as const;

export const ANSWER_RESPONSE_SCHEMA = {
  $id: 'AnswerResponse',
  type: 'object',
  required: ['query', 'answer', 'sources'],
  properties: {
    query: str,
    reformulated_question: strOrNull,
    answer: str,
    sources: { type: 'array', items: { type: 'object', required: ['reco_id', 'reco_title', 'source_name'], properties: { reco_id: { type: 'integer' }, reco_title: str, source_name: str, deep_link: strOrNull } } },
    steps: { type: 'array', items: { type: 'object', required: ['tool', 'in', 'out'], properties: { tool: str, in: { type: 'object' }, out: { type: 'object' } } } },
    evidence: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'org', 'title', 'url', 'units'],
        properties: { id: str, org: str, year: strOrNull, title: str, page: intOrNull, url: str, grade: strOrNull, units: { type: 'array', items: { type: 'object', required: ['text'], properties: { text: str, type: { type: 'string', default: 'extrait' } } } } },
      },
    },
    tokens_in: intOrNull,
    tokens_out: intOrNull,
  },
} as const;

/** Decision 18: Locus's 422 `detail` list of `{loc, msg, type}` plus the decision-1 `error` object. */
export const KNOWLEDGE_VALIDATION_ERROR_SCHEMA = {
  $id: 'KnowledgeValidationError',
  type: 'object',
  required: ['error', 'detail'],
  properties: {
    error: { type: 'object', required: ['message', 'type', 'param', 'code'], properties: { message: str, type: str, param: strOrNull, code: str } },
    detail: { type: 'array', items: { type: 'object', required: ['loc', 'msg', 'type'], properties: { loc: { type: 'array', items: { type: ['string', 'integer'] } }, msg: str, type: str, input: {}, ctx: { type: 'object' } } } },
  },
} as const;

export const KNOWLEDGE_SCHEMAS = {
  MkuContextRequest: CONTEXT_REQUEST_SCHEMA,
  MkuContextResponse: CONTEXT_RESPONSE_SCHEMA,
  RetrieveRequest: RETRIEVE_REQUEST_SCHEMA,
  RetrieveResponse: RETRIEVE_RESPONSE_SCHEMA,
  RetrieveStreamLine: RETRIEVE_STREAM_LINE_SCHEMA,
  AnswerRequest: ANSWER_REQUEST_SCHEMA,
  AnswerResponse: ANSWER_RESPONSE_SCHEMA,
  KnowledgeValidationError: KNOWLEDGE_VALIDATION_ERROR_SCHEMA,
} as const;
