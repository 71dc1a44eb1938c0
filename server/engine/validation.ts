/**
 * `answerValidation` (§7.4) from the deterministic checks alone: what the temporal gate and the
 * contracts found, and the writer's first draft whenever a check changed it.
 */
import { VALIDATION_LABELS, type AnswerValidation, type Issue, type ValidationStatus } from '../answer';
import { settledStatus, settledSummary } from './answer-status';
import type { TurnState } from './types';

/** Status after the deterministic checks: a blocking issue or a fallback needs review; a patch is an edit. */
export function deterministicStatus(turn: TurnState): ValidationStatus {
  const blocking = turn.validation.issues.some((i) => i.status === 'fail' && (i.severity === 'block' || turn.validation.temporalGate?.mode === 'warn'));
  if (turn.validation.temporalGate?.applied === 'fallback') return 'needs_review';
  if (blocking && turn.validation.temporalGate?.applied !== 'patch') return 'needs_review';
  if (turn.answer.originalDraft) return 'edited';
  return 'checked';
}

export function deterministicValidation(turn: TurnState, now: Date = new Date()): AnswerValidation {
  return settledValidation(turn, deterministicStatus(turn), 'Answer checked against deterministic temporal/date rules.', now);
}

/** A reviewed Answer outside the staged product flow (the `answer-review:` leg): the settled status rule. */
export function reviewedValidation(turn: TurnState, now: Date = new Date()): AnswerValidation {
  if (!turn.answer.draft) return settledValidation(turn, 'unavailable', 'There was no answer to review.', now);
  return settledValidation(turn, settledStatus(turn), settledSummary(turn), now);
}

/** `answerValidation` of a non-staged output: settled now, with the writer's first draft when a check changed it. */
function settledValidation(turn: TurnState, status: ValidationStatus, summary: string, now: Date): AnswerValidation {
  const out: AnswerValidation = { status, label: VALIDATION_LABELS[status], summary, issues: dedupeIssues(turn.validation.issues), completedAt: now.toISOString() };
  if (turn.answer.originalDraft) {
    out.originalAnswer = turn.answer.originalDraft.answer;
    out.originalBlocks = turn.answer.originalDraft.blocks;
  }
  return out;
}

/** Issues deduplicated by canonical JSON (§7.4). */
export function dedupeIssues(issues: readonly Issue[]): Issue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = JSON.stringify(i, Object.keys(i).sort());
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
