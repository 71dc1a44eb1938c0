/**
 * The envelopes the hub hands out, stated once (hub-contract §3.4–3.8, clients.md §2.3): the staged
 * product envelope every product event carries, its blocking form, and the result of a leg or plain
 * profile. Their JSON Schemas sit beside them in envelope-schema.ts.
 *
 * Parts produced on higher floors (the context summary, the In-Depth gate's report) are stated here by
 * the keys the envelope promises; their producers' fuller types are assignable to them.
 */
import type { Reference } from './references';
import type { AnswerDraft, ConfidenceLevel, TableBlock } from './types';
import type { ValidationStatus } from './validation';

export type SafetyStatus = 'checked' | 'limited' | 'unavailable';

/** The `drug_safety.v1` object, under `safetyCheck` and again under `drug_safety` (§9.6, decision 17). */
export type DrugSafetyCheck = {
  schema_version: 'drug_safety.v1';
  status: SafetyStatus;
  warnings: readonly unknown[];
  package: unknown;
  coverage: unknown;
  identity_confidence: 'structured' | 'inline_text' | null;
  issues: readonly unknown[];
};

/** The drug-safety keys of a product envelope: the legacy pair and the object twice. */
export type DrugSafetyKeys = {
  safetyStatus: SafetyStatus;
  /** Only when there are warnings (§3.4). */
  safetyWarnings?: readonly unknown[];
  safetyCheck: DrugSafetyCheck;
  drug_safety: DrugSafetyCheck;
};

/** One thing a check found, shipped instead of a level under `policies.confidence: findings` (§7.8 Target). */
export type ConfidenceFinding = { check: string; where: 'answer' | number; status: string; says: string };

/** A shipped confidence section: a graded level, or `level: null` with the findings behind it. */
export type ShippedConfidence = ConfidenceLevel | { level: null; note: string; findings: ConfidenceFinding[] };

/** `confidence` (§7.8): the Answer's, plus In-Depth's once it is no longer pending. */
export type EnvelopeConfidence = { answer: ShippedConfidence; in_depth?: ShippedConfidence };

/** `temporal_gate.v1`: the Answer gate's result (§6.3), with how the engine `applied` it. */
export type TemporalGateWire = {
  schema_version: 'temporal_gate.v1';
  mode: string;
  status: 'pass' | 'warn' | 'fail' | 'not_applicable';
  checks: readonly unknown[];
  patch_answer: string | null;
  patch_citations: number[];
  applied?: 'none' | 'patch' | 'fallback';
};

/** One issue a check raised (§7.4); checks give each its own fields beside `id`, `status` and `reason`. */
export type Issue = Readonly<Record<string, unknown>>;

/** `answerValidation` (§7.4). */
export interface AnswerValidation {
  status: ValidationStatus;
  label: string;
  summary: string;
  issues: readonly Issue[];
  completedAt?: string;
  /** The writer's first draft when a check changed it, with its references and blocks (review artefacts). */
  originalAnswer?: string;
  originalReferences?: Reference[];
  originalBlocks?: AnswerDraft['blocks'];
}

/** `confidence.answer` / `confidence.in_depth` (§7.8) as the checks graded them. */
export interface TurnConfidence {
  answer: ConfidenceLevel;
  in_depth?: ConfidenceLevel;
}

/** One claim's citation verdict under `inDepth.validation.citation_checks`. */
export interface ClaimCitationCheck {
  claim_index: number;
  status: string;
  reason: string;
}

/** `inDepth.validation`: the In-Depth gate's report (checks/temporal) plus the claims' citation checks and the review status. */
export interface InDepthValidationWire {
  schema_version: 'indepth_temporal_gate.v1';
  citation_checks: ClaimCitationCheck[];
  review_status?: 'clean' | 'flagged' | 'unavailable';
}

/** `inDepth` (§3.5) of plans with In-Depth; `V` is the validation as its producer types it. */
export interface InDepthSection<V extends InDepthValidationWire = InDepthValidationWire> {
  status: 'pending' | 'needs_review' | 'complete' | 'failed';
  answer: string;
  error: string;
  validation: V | null;
  /** Only on context overflow (§3.5), with the stable ids of the mandatory records that could not fit. */
  errorCode?: 'insufficient_context';
  mandatorySourceIds?: string[];
  /** The claims as first drafted, when a safe repair changed one (§3.5). */
  reviewDraft?: string;
  reviewReferences?: Reference[];
}

export type AgreementClaimStatus = 'agreed' | 'differs' | 'unverified' | 'unchecked';

export interface AgreementClaim {
  claim_index: number;
  claim: string;
  status: AgreementClaimStatus;
  /** What the second answer says instead (differing claims only). */
  other_says?: string[];
}

/** `agreement` (§7.9): the second writer's answer and, per sentence of the Answer, how it compares. */
export interface Agreement {
  model: string;
  answer: string;
  status: 'agreed' | 'partly' | 'differs' | 'unchecked';
  claims: AgreementClaim[];
  /** The second writer's view of the claims it states differently. */
  other: Array<{ claim_index: number; says: string[] }>;
  /** The claims it does not state. */
  not_stated: number[];
}

/** `context_view.v1` (§5.10): the context stage's summary (context/context-view.ts types it whole). */
export interface ContextViewWire {
  schema_version: 'context_view.v1';
}

/**
 * The staged product envelope (§3.4): the data of every staged event (`answer_done` … `done`), the
 * complete current state, never a delta. No top-level `status`; In-Depth lives only under `inDepth`,
 * and only for plans with In-Depth (decision 19).
 */
export type ProductEnvelope = DrugSafetyKeys & {
  answer: string;
  references: readonly Reference[];
  blocks: TableBlock[];
  model: string;
  confidence: EnvelopeConfidence;
  /** §7.4; null before the first check settled it. */
  answerValidation: AnswerValidation | null;
  /** The Answer gate's result (§6.3) once it ran. */
  temporalGate: TemporalGateWire | null;
  /** `context_view.v1` (§5.10) once the context stage ran. */
  context: ContextViewWire | null;
  /** The second writer's comparison (§7.9), on plans with `agree`. */
  agreement?: Agreement;
  /** §3.5, on plans with In-Depth only. */
  inDepth?: InDepthSection;
};

/** A blocking product response (§3.6): the last `done` envelope plus `citations` recomputed from the references. */
export type BlockingProductEnvelope = ProductEnvelope & { citations: number[] };

/**
 * The result of a leg or plain profile (§3.8 output modes `bare`, `review`, `indepth`): the Answer in
 * the caller's contract, with only the keys its mode adds.
 */
export type LegEnvelope = {
  answer: string;
  citations: number[];
  blocks: TableBlock[];
  /** `bare` only. */
  safetyStatus?: SafetyStatus;
  /** `bare` in the hub's `chart_answer` contract: citations resolved against the complete ledger. */
  references?: Reference[];
  /** `review` only: the Answer's confidence. */
  confidence?: Pick<EnvelopeConfidence, 'answer'>;
  /** `review`, and `bare` when the temporal gate ran. */
  answerValidation?: AnswerValidation;
  /** `bare` when the temporal gate ran (`warn` / `enforce`). */
  temporalGate?: TemporalGateWire;
};
