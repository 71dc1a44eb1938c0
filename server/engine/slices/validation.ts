/**
 * The turn's validation slice (`turn.validation`): the issues the checks raised, the temporal gate's
 * result and `answerValidation`. Written only here; the checking stages call the named writers below.
 */
import type { AnswerValidation, Issue } from '../../answer';
import type { TemporalGateResult } from '../../checks/temporal';
import type { Writable } from './writable';


export interface ValidationSlice {
  /** Issues raised by the checks (contracts, temporal gate, review, grounding, agreement), in order. */
  readonly issues: readonly Issue[];
  readonly temporalGate: TemporalGateResult | null;
  /** `answerValidation` (§7.4) once resolve_refs ran. */
  readonly answerValidation: AnswerValidation | null;
}

type HasValidation = { readonly validation: ValidationSlice };

export function newValidationSlice(): ValidationSlice {
  return { issues: [], temporalGate: null, answerValidation: null };
}

function own(turn: HasValidation): Writable<ValidationSlice> {
  return turn.validation;
}

export function raiseIssues(turn: HasValidation, issues: readonly Issue[]): void {
  if (issues.length === 0) return;
  const slice = own(turn);
  slice.issues = [...slice.issues, ...issues];
}

/** Replaces the issues of one check (`id`) with its latest ones, kept last (citation resolution re-runs). */
export function replaceIssues(turn: HasValidation, id: string, issues: readonly Issue[]): void {
  const slice = own(turn);
  slice.issues = slice.issues.filter((i) => i.id !== id).concat(issues);
}

export function recordTemporalGate(turn: HasValidation, gate: TemporalGateResult): void {
  own(turn).temporalGate = gate;
}

export function settleAnswerValidation(turn: HasValidation, validation: AnswerValidation): void {
  own(turn).answerValidation = validation;
}
