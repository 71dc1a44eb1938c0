/**
 * The envelopes the hub hands out (hub-contract §3.4–3.8, clients.md §2.3), as this client reads them.
 * Every object type here has a key list in envelope-keys.ts that the compiler ties to the type, and a
 * test compares those lists with the hub's JSON Schemas (server/answer/envelope-schema.ts): a field the
 * hub adds or drops fails the client's suite until these types follow.
 */

export type SafetyStatus = 'checked' | 'limited' | 'unavailable';
export type ValidationStatus = 'checking' | 'checked' | 'edited' | 'needs_review' | 'unavailable';
export type GroundingStatus = 'checking' | 'verified' | 'unsupported' | 'mixed' | 'unchecked';
export type UsageLocation = 'answer' | 'block' | 'indepth' | 'answer_review_draft' | 'indepth_review_draft';

export interface ReferenceUsage {
  location: UsageLocation;
  text: string;
  /** Table cells only: `blocks[i].rows[j].cells.<key>`. */
  path?: string;
}

/** §8: a cited record, resolved against the turn's complete ledger or not. */
export interface Reference {
  index: number;
  sourceId?: string;
  source?: string;
  resourceType?: string;
  resourceUuid?: string | null;
  date?: string | null;
  title?: string;
  sourceText?: string;
  provenance?: Record<string, string>;
  resolutionStatus: 'resolved' | 'unresolved';
  usage: ReferenceUsage[];
  groundingStatus: GroundingStatus;
  grounded: boolean | null;
  groundingChecks?: Array<Record<string, unknown>>;
  groundingScope?: 'record' | 'source_set';
  groundingGroup?: number[];
  /** Facts-first verdict (`supported`, `contradicted`, `not_addressed`, `unchecked`). */
  support?: string;
}

export interface TableColumn {
  key: string;
  label: string;
}

export interface TableRow {
  cells: Record<string, { text: string; refs?: number[] }>;
}

/** §3.9: a table block (the writer's blocks pass through, so extra keys may ride along). */
export interface TableBlock {
  kind: 'table';
  title: string;
  columns: TableColumn[];
  rows: TableRow[];
}

/** One thing a check found, shipped instead of a colour under `policies.confidence: findings`. */
export interface ConfidenceFinding {
  check: string;
  where: 'answer' | number;
  status: string;
  says: string;
}

/** A graded level, or `level: null` with the findings behind it. */
export interface ConfidenceLevel {
  level: 'green' | 'yellow' | 'red' | null;
  note: string;
  findings?: ConfidenceFinding[];
}

export interface EnvelopeConfidence {
  answer: ConfidenceLevel;
  /** Once In-Depth is no longer pending. */
  in_depth?: ConfidenceLevel;
}

/** §7.4. */
export interface AnswerValidation {
  status: ValidationStatus;
  label: string;
  summary: string;
  issues: Array<Record<string, unknown>>;
  completedAt?: string;
  /** Review artefacts: the first draft when a check changed it. */
  originalAnswer?: string;
  originalReferences?: Reference[];
  originalBlocks?: TableBlock[];
}

/** §6.3: `temporal_gate.v1`, with how the engine `applied` it. */
export interface TemporalGate {
  schema_version: 'temporal_gate.v1';
  mode: 'off' | 'warn' | 'enforce';
  status: 'pass' | 'warn' | 'fail' | 'not_applicable';
  checks: Array<Record<string, unknown>>;
  patch_answer: string | null;
  patch_citations: number[];
  applied?: 'none' | 'patch' | 'fallback';
}

/** §3.5: In-Depth state, only ever under `inDepth`. */
export interface InDepth {
  status: 'pending' | 'complete' | 'needs_review' | 'failed';
  answer: string;
  error: string;
  validation?: Record<string, unknown> | null;
  /** On context overflow only. */
  errorCode?: string;
  mandatorySourceIds?: string[];
  reviewDraft?: string;
  reviewReferences?: Reference[];
}

/** §9.6: `drug_safety.v1`, under both `safetyCheck` and `drug_safety` (decision 17). */
export interface DrugSafetyCheck {
  schema_version: 'drug_safety.v1';
  status: SafetyStatus;
  warnings: Array<Record<string, unknown>>;
  package: Record<string, unknown> | null;
  coverage: Record<string, unknown>;
  identity_confidence: 'structured' | 'inline_text' | null;
  issues: Array<Record<string, unknown>>;
}

/** The typed part of `context_view.v1` (§5.10): versioned on its own, so only its version is typed here. */
export interface ContextViewVersion {
  schema_version: 'context_view.v1';
}

export type ContextView = ContextViewVersion & { [key: string]: unknown };

/** The data of every staged product event (`answer_done` … `done`): the complete current state. */
export interface ProductEnvelope {
  answer: string;
  references: Reference[];
  blocks: TableBlock[];
  model: string;
  confidence: EnvelopeConfidence;
  answerValidation: AnswerValidation | null;
  temporalGate: TemporalGate | null;
  context: ContextView | null;
  safetyStatus: SafetyStatus;
  /** Only when there are warnings. */
  safetyWarnings?: Array<Record<string, unknown>>;
  safetyCheck: DrugSafetyCheck;
  drug_safety: DrugSafetyCheck;
  /** Plans with a second writer (§7.9). */
  agreement?: Record<string, unknown>;
  /** Plans with In-Depth only (decision 19). */
  inDepth?: InDepth;
}

/** A blocking product answer: the final envelope plus `citations` recomputed from the references. */
export interface BlockingProductEnvelope extends ProductEnvelope {
  citations: number[];
}

/** The result of a leg or plain profile (§3.8): only the keys its output mode adds. */
export interface LegEnvelope {
  answer: string;
  citations: number[];
  blocks: TableBlock[];
  safetyStatus?: SafetyStatus;
  references?: Reference[];
  confidence?: { answer: ConfidenceLevel };
  answerValidation?: AnswerValidation;
  temporalGate?: TemporalGate;
}

/** `event: error` data (§3.1). */
export interface ErrorEventData {
  code: string;
  source: string;
  message: string;
  /** The missing model and its expected file, on `model_unavailable`. */
  model?: unknown;
  expected_file?: unknown;
}
