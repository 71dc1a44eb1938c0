/**
 * JSON Schema (draft 2020-12) of `profiles/levels.yaml` (hub-contract §4.1).
 *
 * The schema checks shape only (types, enums, unknown keys); the plan and policy rules of §4.2
 * need several keys at once and live in rules.ts. The same object is published in /openapi.json,
 * so the document and the validator cannot drift (decision 14). It uses no `$ref`, so it stays
 * valid wherever it is embedded (with or without its `$id`).
 */
import { ROLES, STAGE_NAMES } from './types';

/** Prompt stems name files inside the prompt directory: no separators, no leading dot (no path traversal). */
export const PROMPT_STEM_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
/** Profile ids never contain ':' so they can never be mistaken for a low-level leg (§4.5). */
export const PROFILE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';

const roleMap = (valueSchema: object, description: string) => ({
  type: 'object',
  description,
  propertyNames: { enum: [...ROLES] },
  additionalProperties: valueSchema,
});

// Knob values may be null: only non-null values override the defaults (§4.6).
const knobs = {
  type: 'object',
  additionalProperties: false,
  properties: {
    temperature: { type: ['number', 'null'], minimum: 0 },
    repeat_penalty: { type: ['number', 'null'], exclusiveMinimum: 0 },
    dry: { type: ['number', 'null'], minimum: 0, description: 'DRY multiplier (router `dry_multiplier`).' },
    max_tokens: { type: ['integer', 'null'], minimum: 1 },
  },
};

const reviewPolicy = {
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: {
    // apply/redo stay in the enum so the compiler can refuse them with a message naming decision 9.
    action: { enum: ['label', 'apply', 'redo'], description: '`label` only; `apply` and `redo` are reserved and refused.' },
    grounding: { enum: ['separate', 'folded', 'off'], default: 'separate' },
    confidence: { enum: ['levels', 'findings'], description: 'Alias of policies.confidence.' },
    grounding_temperature: { type: 'number', minimum: 0, description: 'Sampling of the grounding checker (0.7 for Qwen 3 checkers).' },
    grounding_repeat_penalty: { type: 'number', exclusiveMinimum: 0, description: '1.0 turns the repetition penalty off.' },
  },
};

const policies = {
  type: 'object',
  additionalProperties: false,
  properties: {
    output: { enum: ['bare', 'combined', 'product', 'review', 'indepth'], default: 'bare' },
    answer_contract: { enum: ['caller', 'chart_answer'], description: 'Default chart_answer for product, else caller.' },
    temporal_gate: { enum: ['off', 'warn', 'enforce'], default: 'off' },
    temporal_render: { enum: ['full', 'compact'], default: 'full' },
    drug_safety: { type: 'boolean', default: false },
    anchor: {
      description: 'wall_clock, latest_record or an ISO date (YYYY-MM-DD), the temporal "today"; null = from the environment',
      anyOf: [{ enum: ['wall_clock', 'latest_record', null] }, { type: 'string', format: 'date' }],
    },
    review_loops: { type: 'integer', minimum: 0, default: 1 },
    review: reviewPolicy,
    confidence: { enum: ['levels', 'findings'], default: 'levels' },
    generation_attempts: { type: 'integer', minimum: 1, maximum: 3, default: 2 },
    collaborative_review: { type: 'boolean', default: false },
    model_classes: { type: 'object', additionalProperties: { type: 'string', minLength: 1 } },
    allowed_operation: { type: 'string', minLength: 1 },
  },
};

const context = {
  type: 'object',
  additionalProperties: false,
  properties: {
    window: { type: 'integer', minimum: 0 },
    reserved_output_tokens: { type: 'integer', minimum: 0 },
    exact_tokenizer: { type: 'boolean', default: false },
    supplemental_sources: {
      description: 'a source name or a list of source names (extra context sources always added)',
      anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    },
  },
};

const profile = {
  type: 'object',
  additionalProperties: false,
  required: ['label', 'topology'],
  properties: {
    label: { type: 'string', minLength: 1 },
    workflow: { enum: ['clinical_answer', 'catalyst_query'], default: 'clinical_answer' },
    topology: { enum: ['single', 'team', 'leg', 'caller'] },
    stages: { type: 'array', items: { enum: [...STAGE_NAMES] }, description: 'Ordered plan; empty or absent for caller topology.' },
    models: roleMap({ type: 'string', minLength: 1, pattern: '^\\S+$' }, 'role → router model id'),
    prompts: roleMap({ type: 'string', pattern: PROMPT_STEM_PATTERN }, 'role → prompt file stem (`<stem>.txt`)'),
    policies,
    visibility: { enum: ['product', 'evaluation', 'debug', 'internal', 'experimental'], default: 'experimental' },
    default: { type: 'boolean', default: false },
    selection_priority: { type: 'integer', minimum: 0, default: 1000 },
    aliases: {
      type: 'array',
      uniqueItems: true,
      items: { type: 'string', pattern: PROFILE_ID_PATTERN },
      description: 'Other ids (e.g. the [REF] ids deployed clients pin) that resolve to this profile; never a second copy.',
    },
    context,
    knobs: roleMap(knobs, 'role → sampling knobs'),
  },
};

export const LEVELS_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://med-agent-hub.local/schemas/levels.schema.json',
  title: 'Med Agent Hub profile catalogue (levels.yaml)',
  type: 'object',
  additionalProperties: false,
  required: ['profiles'],
  properties: {
    stage_sets: { description: 'YAML anchors shared by profiles; never read by code.' },
    profiles: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: PROFILE_ID_PATTERN },
      additionalProperties: profile,
    },
  },
};
