/**
 * The product envelope (§3.4): every staged event carries the complete current state, so a client
 * may render any of them. In-Depth state lives only under `inDepth`, and only for plans that have
 * In-Depth (decision 19); there is never a top-level `status`.
 */
import { VALIDATION_LABELS, type AnswerValidation, type ProductEnvelope, type ValidationStatus } from '../answer';
import { settledStatus, settledSummary } from './answer-status';
import { shippedConfidence } from './findings';
import { answerUsages, resolveReferences } from './references';
import { drugSafetyKeys } from './stages/drug-safety';
import type { InDepthSection } from './slices/answer';
import type { TurnState } from './types';
import { dedupeIssues } from './validation';

export function productEnvelope(turn: TurnState): ProductEnvelope {
  const draft = turn.answer.draft ?? { answer: '', blocks: [] };
  const envelope: ProductEnvelope = {
    answer: draft.answer,
    references: turn.answer.references,
    blocks: draft.blocks,
    model: turn.request.model,
    confidence: shippedConfidence(turn),
    answerValidation: turn.validation.answerValidation,
    temporalGate: turn.validation.temporalGate,
    context: turn.context.summary,
    // `safetyStatus`, `safetyWarnings` (when any), and the drug_safety.v1 object twice (§9.6, decision 17).
    ...drugSafetyKeys(turn.drugSafety),
  };
  if (turn.review.agreement) envelope.agreement = turn.review.agreement;
  if (turn.profile.stages.includes('indepth')) envelope.inDepth = turn.answer.inDepth ?? pendingInDepth();
  return envelope;
}

export function pendingInDepth(): InDepthSection {
  return { status: 'pending', answer: '', error: '', validation: null };
}

/**
 * `answerValidation` of a product Answer: `checking` until the last check settles, then the one
 * status rule of answer-status.ts (model checks included when the plan has them).
 */
export function productValidation(turn: TurnState, phase: 'checking' | 'final', now: Date = new Date()): AnswerValidation {
  const status: ValidationStatus = phase === 'final' ? settledStatus(turn) : 'checking';
  const out: AnswerValidation = {
    status,
    label: VALIDATION_LABELS[status],
    summary: phase === 'final' ? settledSummary(turn) : 'Checking the answer against the chart.',
    issues: dedupeIssues(turn.validation.issues),
  };
  if (phase === 'final') out.completedAt = now.toISOString();
  const first = turn.answer.originalDraft;
  if (first && turn.context.ledger) {
    out.originalAnswer = first.answer;
    // Review artefacts, never final evidence: resolved for the draft only, unchecked (§3.5, §7.4).
    out.originalReferences = resolveReferences(answerUsages(first, 'answer_review_draft'), turn.context.ledger, 'unchecked');
    out.originalBlocks = first.blocks;
  }
  return out;
}
