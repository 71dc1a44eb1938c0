/**
 * The turn's answer slice (`turn.answer`): the Answer draft and the writer's first draft, its
 * references, its confidence, the In-Depth section, and the last envelope handed to the client.
 * Written only here; the stages that produce or revise these call the named writers below.
 */
import type { InDepthGateResult } from '../../checks/temporal/indepth-gate';
import type { Reference } from '../references';
import type { AnswerDraft } from '../types';
import type { AnswerValidation } from './validation';
import type { Writable } from './writable';

export interface ConfidenceLevel {
  level: 'green' | 'yellow' | 'red';
  note: string;
  [key: string]: unknown;
}

/** `confidence.answer` / `confidence.in_depth` (§7.8). */
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

/** `inDepth.validation`: the In-Depth gate's result with every mark, the claims' citation checks and the review status. */
export type InDepthValidation = InDepthGateResult & { citation_checks: ClaimCitationCheck[]; review_status?: 'clean' | 'flagged' | 'unavailable' };

/** `inDepth` (§3.5) of plans with In-Depth. */
export interface InDepthSection {
  status: 'pending' | 'needs_review' | 'complete' | 'failed';
  answer: string;
  error: string;
  validation: InDepthValidation | null;
  /** The claims as first drafted, when a safe repair changed one (§3.5). */
  reviewDraft?: string;
  reviewReferences?: Reference[];
}

/** The envelope last handed to the client (the product envelope; its full type is the answer model's). */
export interface EmittedEnvelope {
  readonly answerValidation: AnswerValidation | null;
  readonly inDepth?: InDepthSection;
  readonly [key: string]: unknown;
}

export interface AnswerSlice {
  readonly draft: AnswerDraft | null;
  /** The writer's first draft, kept when a check changes the Answer (answerValidation.originalAnswer). */
  readonly originalDraft: AnswerDraft | null;
  /** Answer references (§8), resolved against the complete ledger. */
  readonly references: readonly Reference[];
  readonly confidence: Readonly<TurnConfidence>;
  /** The writer's In-Depth claims, as drafted (null until drafted, or when withheld). */
  readonly inDepthClaims: readonly string[] | null;
  /** `inDepth` (§3.5) for plans with In-Depth; null otherwise (and then no key at all, decision 19). */
  readonly inDepth: InDepthSection | null;
  /** The last envelope handed to the client; a late failure restores it (§3.3). */
  readonly lastEmitted: EmittedEnvelope | null;
}

type HasAnswer = { readonly answer: AnswerSlice };

export function newAnswerSlice(): AnswerSlice {
  return { draft: null, originalDraft: null, references: [], confidence: { answer: { level: 'green', note: '' } }, inDepthClaims: null, inDepth: null, lastEmitted: null };
}

function own(turn: HasAnswer): Writable<AnswerSlice> {
  return turn.answer;
}

/** The Answer as written (by the writer, sent by the caller for review, or the last assistant message), or none. */
export function adoptDraft(turn: HasAnswer, draft: AnswerDraft | null): void {
  own(turn).draft = draft;
}

/** The Answer after the deterministic checks; `first` is the draft they changed, null when none changed it. */
export function settleCheckedDraft(turn: HasAnswer, draft: AnswerDraft, first: AnswerDraft | null): void {
  const slice = own(turn);
  slice.draft = draft;
  if (first) slice.originalDraft = first;
}

export function adoptReferences(turn: HasAnswer, references: readonly Reference[]): void {
  own(turn).references = references;
}

export function settleAnswerConfidence(turn: HasAnswer, level: ConfidenceLevel): void {
  const slice = own(turn);
  slice.confidence = { ...slice.confidence, answer: level };
}

export function settleInDepthConfidence(turn: HasAnswer, level: ConfidenceLevel): void {
  const slice = own(turn);
  slice.confidence = { ...slice.confidence, in_depth: level };
}

export function noteInDepthClaims(turn: HasAnswer, claims: readonly string[]): void {
  own(turn).inDepthClaims = claims;
}

export function settleInDepth(turn: HasAnswer, section: InDepthSection): void {
  own(turn).inDepth = section;
}

export function noteEmitted(turn: HasAnswer, envelope: EmittedEnvelope): void {
  own(turn).lastEmitted = envelope;
}
