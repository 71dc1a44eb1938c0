/**
 * The settled status of an Answer (§7.4 with decisions 9 and 16): one rule for every plan, so a
 * plan without model checks and a reviewed, grounded, agreement-checked plan cannot disagree.
 *
 * - needs_review: a red Answer, a blocking check, a counted reviewer flag, a contradicted citation,
 *   or a statement the second writer states differently;
 * - unavailable: a configured model check could not run (review, grounding, agreement);
 * - edited: a deterministic check changed the writer's first draft;
 * - checked otherwise. A `not_addressed` citation is an info note and never changes the status.
 */
import type { Reference, ValidationStatus } from '../answer';
import type { TurnState } from './types';

/** Answer-side references: those used by the Answer prose or a table. */
export function answerReferences(refs: readonly Reference[]): Reference[] {
  return refs.filter((r) => r.usage.some((u) => u.location === 'answer' || u.location === 'block'));
}

function answerChecks(ref: Reference): Array<Record<string, unknown>> {
  return ((ref.groundingChecks ?? []) as Array<Record<string, unknown>>).filter((c) => c.location === 'answer' || c.location === 'block');
}

/** A resolved Answer reference whose Answer-side checks contradict it. */
export function contradicted(ref: Reference): boolean {
  return ref.resolutionStatus === 'resolved' && answerChecks(ref).some((c) => c.support === 'contradicted' || (c.support === undefined && c.status === 'unsupported'));
}

/** A resolved Answer reference grounding was meant to check but could not (or has not yet). */
export function uncheckedByGrounding(ref: Reference): boolean {
  if (ref.resolutionStatus !== 'resolved') return false;
  if (ref.groundingStatus === 'checking') return true;
  const checks = answerChecks(ref);
  return checks.length === 0 || checks.some((c) => c.support === 'unchecked' || (c.support === undefined && c.status === 'unchecked'));
}

function groundingOn(turn: TurnState): boolean {
  const review = turn.profile.policies.review;
  return review !== null && review.grounding !== 'off' && turn.profile.stages.includes('ground_verdicts');
}

export function settledStatus(turn: TurnState): ValidationStatus {
  const refs = answerReferences(turn.answer.references);
  const blocking = turn.validation.issues.some((i) => i.status === 'fail' && i.severity === 'block' && i.resolved_by === undefined);
  const agreementStatus = turn.review.agreement?.status;
  const agreementDiffers = ((turn.review.agreement?.claims ?? []) as Array<{ status?: string }>).some((c) => c.status === 'differs');
  if (turn.answer.confidence.answer.level === 'red' || blocking) return 'needs_review';
  if (turn.review.answer?.status === 'needs_review' || agreementDiffers) return 'needs_review';
  if (refs.some(contradicted)) return 'needs_review';
  if (turn.review.answer?.status === 'unavailable' || agreementStatus === 'unchecked') return 'unavailable';
  if (groundingOn(turn) && refs.some(uncheckedByGrounding)) return 'unavailable';
  return turn.answer.originalDraft ? 'edited' : 'checked';
}

/** Which checks stand behind a settled status, for the `summary` line. */
export function settledSummary(turn: TurnState): string {
  const ran = ['the chart', 'deterministic temporal/date rules'];
  if (turn.review.answer) ran.push('a model review (labels only)');
  if (groundingOn(turn)) ran.push('facts-first citation grounding');
  if (turn.review.agreement) ran.push('a second writer');
  return `Answer checked against ${ran.slice(0, -1).join(', ')} and ${ran[ran.length - 1]}.`;
}
