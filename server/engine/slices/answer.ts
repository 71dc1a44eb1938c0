/**
 * The turn's answer slice (`turn.answer`): the Answer draft and the writer's first draft, its
 * references, its confidence, the In-Depth section, and the last envelope handed to the client.
 * Written only here; the stages that produce or revise these call the named writers below.
 */
import type { InDepthSection as InDepthSectionWire, InDepthValidationWire, ProductEnvelope, TurnConfidence, Reference, AnswerDraft, ConfidenceLevel } from '../../answer';
import type { InDepthGateResult } from '../../checks/temporal';
import type { Writable } from './writable';

/** `inDepth.validation` as the engine holds it: the In-Depth gate's whole result plus the wire's own keys. */
export type InDepthValidation = InDepthGateResult & InDepthValidationWire;

/** `inDepth` (§3.5) with the gate's result typed whole. */
export type InDepthSection = InDepthSectionWire<InDepthValidation>;

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
  readonly lastEmitted: ProductEnvelope | null;
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

export function noteEmitted(turn: HasAnswer, envelope: ProductEnvelope): void {
  own(turn).lastEmitted = envelope;
}
