/**
 * The keys each envelope type of envelope.ts declares, as runtime lists the compiler ties to the types:
 * `shapeOf<T>()` accepts only keys of T and refuses a list that leaves one out, so a list and its type
 * cannot disagree. clients/js/test/envelope-schema-drift.test.ts compares these lists, recursively, with
 * the hub's JSON Schemas; callers may also use them to spot keys a newer hub sends.
 */
import type {
  AnswerValidation, BlockingProductEnvelope, ConfidenceFinding, ConfidenceLevel, ContextViewVersion, DrugSafetyCheck,
  EnvelopeConfidence, ErrorEventData, InDepth, LegEnvelope, ProductEnvelope, Reference, ReferenceUsage, TableBlock,
  TableColumn, TableRow, TemporalGate,
} from './envelope.js';

/** An object type's keys, and the shapes of the nested objects (or array items) it types. */
export interface KeyShape {
  readonly keys: readonly string[];
  readonly nested: Readonly<Record<string, KeyShape>>;
}

/** `K` when it lists every key of T; otherwise a type naming the keys it misses (a compile error at the call). */
type Complete<T, K extends readonly PropertyKey[]> = [Exclude<keyof T, K[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, K[number]> };

export function shapeOf<T>() {
  return <const K extends readonly (keyof T & string)[]>(keys: K & Complete<T, K>, nested: { readonly [P in K[number]]?: KeyShape } = {}): KeyShape => ({
    keys,
    nested: nested as Record<string, KeyShape>,
  });
}

const USAGE = shapeOf<ReferenceUsage>()(['location', 'text', 'path']);

const REFERENCE = shapeOf<Reference>()(
  ['index', 'sourceId', 'source', 'resourceType', 'resourceUuid', 'date', 'title', 'sourceText', 'provenance', 'resolutionStatus', 'usage', 'groundingStatus', 'grounded', 'groundingChecks', 'groundingScope', 'groundingGroup', 'support'],
  { usage: USAGE },
);

const TABLE_BLOCK = shapeOf<TableBlock>()(['kind', 'title', 'columns', 'rows'], {
  columns: shapeOf<TableColumn>()(['key', 'label']),
  rows: shapeOf<TableRow>()(['cells']),
});

const FINDING = shapeOf<ConfidenceFinding>()(['check', 'where', 'status', 'says']);
const CONFIDENCE_LEVEL = shapeOf<ConfidenceLevel>()(['level', 'note', 'findings'], { findings: FINDING });
const CONFIDENCE = shapeOf<EnvelopeConfidence>()(['answer', 'in_depth'], { answer: CONFIDENCE_LEVEL, in_depth: CONFIDENCE_LEVEL });

const ANSWER_VALIDATION = shapeOf<AnswerValidation>()(
  ['status', 'label', 'summary', 'issues', 'completedAt', 'originalAnswer', 'originalReferences', 'originalBlocks'],
  { originalReferences: REFERENCE, originalBlocks: TABLE_BLOCK },
);

const TEMPORAL_GATE = shapeOf<TemporalGate>()(['schema_version', 'mode', 'status', 'checks', 'patch_answer', 'patch_citations', 'applied']);

const IN_DEPTH = shapeOf<InDepth>()(
  ['status', 'answer', 'error', 'validation', 'errorCode', 'mandatorySourceIds', 'reviewDraft', 'reviewReferences'],
  { reviewReferences: REFERENCE },
);

const DRUG_SAFETY = shapeOf<DrugSafetyCheck>()(['schema_version', 'status', 'warnings', 'package', 'coverage', 'identity_confidence', 'issues']);

const CONTEXT_VIEW = shapeOf<ContextViewVersion>()(['schema_version']);

const PRODUCT_NESTED = {
  references: REFERENCE,
  blocks: TABLE_BLOCK,
  confidence: CONFIDENCE,
  answerValidation: ANSWER_VALIDATION,
  temporalGate: TEMPORAL_GATE,
  context: CONTEXT_VIEW,
  safetyCheck: DRUG_SAFETY,
  drug_safety: DRUG_SAFETY,
  inDepth: IN_DEPTH,
} as const;

const PRODUCT_ENVELOPE = shapeOf<ProductEnvelope>()(
  ['answer', 'references', 'blocks', 'model', 'confidence', 'answerValidation', 'temporalGate', 'context', 'safetyStatus', 'safetyWarnings', 'safetyCheck', 'drug_safety', 'agreement', 'inDepth'],
  PRODUCT_NESTED,
);

const BLOCKING_PRODUCT_ENVELOPE = shapeOf<BlockingProductEnvelope>()(
  ['answer', 'references', 'blocks', 'model', 'confidence', 'answerValidation', 'temporalGate', 'context', 'safetyStatus', 'safetyWarnings', 'safetyCheck', 'drug_safety', 'agreement', 'inDepth', 'citations'],
  PRODUCT_NESTED,
);

const LEG_ENVELOPE = shapeOf<LegEnvelope>()(['answer', 'citations', 'blocks', 'safetyStatus', 'references', 'confidence', 'answerValidation', 'temporalGate'], {
  blocks: TABLE_BLOCK,
  references: REFERENCE,
  confidence: shapeOf<{ answer: ConfidenceLevel }>()(['answer'], { answer: CONFIDENCE_LEVEL }),
  answerValidation: ANSWER_VALIDATION,
  temporalGate: TEMPORAL_GATE,
});

const ERROR_EVENT = shapeOf<ErrorEventData>()(['code', 'source', 'message', 'model', 'expected_file']);

/** Per envelope, named as the hub's OpenAPI components name them. */
export const ENVELOPE_KEY_SHAPES = {
  ProductEnvelope: PRODUCT_ENVELOPE,
  BlockingProductEnvelope: BLOCKING_PRODUCT_ENVELOPE,
  LegEnvelope: LEG_ENVELOPE,
  ErrorEventData: ERROR_EVENT,
} as const satisfies Record<string, KeyShape>;
