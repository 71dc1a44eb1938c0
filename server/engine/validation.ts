/**
 * `answerValidation` (§7.4) from the deterministic checks alone: what the temporal gate and the
 * contracts found, and the writer's first draft whenever a check changed it.
 */
import { settledStatus, settledSummary } from './answer-status';
import type { TurnState } from './types';

export const VALIDATION_LABELS = {
  checking: 'Checking answer',
  checked: 'Checked',
  edited: 'Updated after check',
  needs_review: 'Needs review',
  unavailable: 'Check unavailable',
} as const;

export type ValidationStatus = keyof typeof VALIDATION_LABELS;

/** Status after the deterministic checks: a blocking issue or a fallback needs review; a patch is an edit. */
export function deterministicStatus(turn: TurnState): ValidationStatus {
  const blocking = turn.issues.some((i) => i.status === 'fail' && (i.severity === 'block' || turn.temporalGate?.mode === 'warn'));
  if (turn.temporalGate?.applied === 'fallback') return 'needs_review';
  if (blocking && turn.temporalGate?.applied !== 'patch') return 'needs_review';
  if (turn.originalDraft) return 'edited';
  return 'checked';
}

export function deterministicValidation(turn: TurnState, now: Date = new Date()): Record<string, unknown> {
  const status = deterministicStatus(turn);
  const out: Record<string, unknown> = {
    status,
    label: VALIDATION_LABELS[status],
    summary: 'Answer checked against deterministic temporal/date rules.',
    issues: dedupeIssues(turn.issues),
    completedAt: now.toISOString(),
  };
  if (turn.originalDraft) {
    out.originalAnswer = turn.originalDraft.answer;
    out.originalBlocks = turn.originalDraft.blocks;
  }
  return out;
}

function dedupeIssues(issues: ReadonlyArray<Record<string, unknown>>): Array<Record<string, unknown>> {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = JSON.stringify(i, Object.keys(i).sort());
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A reviewed Answer outside the staged product flow (the `answer-review:` leg): the settled status rule. */
export function reviewedValidation(turn: TurnState, now: Date = new Date()): Record<string, unknown> {
  const status = turn.draft ? settledStatus(turn) : 'unavailable';
  const out: Record<string, unknown> = {
    status,
    label: VALIDATION_LABELS[status],
    summary: turn.draft ? settledSummary(turn) : 'There was no answer to review.',
    issues: dedupeIssues(turn.issues),
    completedAt: now.toISOString(),
  };
  if (turn.originalDraft) {
    out.originalAnswer = turn.originalDraft.answer;
    out.originalBlocks = turn.originalDraft.blocks;
  }
  return out;
}
