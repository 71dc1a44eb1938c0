/**
 * The product envelope (§3.4): every staged event carries the complete current state, so a client
 * may render any of them. In-Depth state lives only under `inDepth`, and only for plans that have
 * In-Depth (decision 19); there is never a top-level `status`.
 */
import type { ProductEnvelope } from '../answer/envelope';
import { settledStatus, settledSummary } from './answer-status';
import { shippedConfidence } from './findings';
import { answerUsages, resolveReferences } from './references';
import { drugSafetyKeys } from './stages/drug-safety';
import type { TurnState } from './types';
import { VALIDATION_LABELS, type ValidationStatus } from '../answer/validation';
import { dedupeIssues } from './validation';

export function productEnvelope(turn: TurnState): ProductEnvelope {
  const draft = turn.draft ?? { answer: '', blocks: [] };
  const envelope: ProductEnvelope = {
    answer: draft.answer,
    references: turn.references,
    blocks: draft.blocks,
    model: turn.request.model,
    confidence: shippedConfidence(turn),
    answerValidation: turn.answerValidation,
    temporalGate: turn.temporalGate,
    context: turn.context,
    // `safetyStatus`, `safetyWarnings` (when any), and the drug_safety.v1 object twice (§9.6, decision 17).
    ...drugSafetyKeys(turn.drugSafety),
  };
  if (turn.agreement) envelope.agreement = turn.agreement;
  if (turn.profile.stages.includes('indepth')) envelope.inDepth = turn.inDepth ?? pendingInDepth();
  return envelope;
}

export function pendingInDepth(): Record<string, unknown> {
  return { status: 'pending', answer: '', error: '', validation: null };
}

/**
 * `answerValidation` of a product Answer: `checking` until the last check settles, then the one
 * status rule of answer-status.ts (model checks included when the plan has them).
 */
export function productValidation(turn: TurnState, phase: 'checking' | 'final', now: Date = new Date()): Record<string, unknown> {
  const status: ValidationStatus = phase === 'final' ? settledStatus(turn) : 'checking';
  const out: Record<string, unknown> = {
    status,
    label: VALIDATION_LABELS[status],
    summary: phase === 'final' ? settledSummary(turn) : 'Checking the answer against the chart.',
    issues: dedupeIssues(turn.issues),
  };
  if (phase === 'final') out.completedAt = now.toISOString();
  const first = turn.originalDraft;
  if (first && turn.ledger) {
    out.originalAnswer = first.answer;
    // Review artefacts, never final evidence: resolved for the draft only, unchecked (§3.5, §7.4).
    out.originalReferences = resolveReferences(answerUsages(first, 'answer_review_draft'), turn.ledger, 'unchecked');
    out.originalBlocks = first.blocks;
  }
  return out;
}
