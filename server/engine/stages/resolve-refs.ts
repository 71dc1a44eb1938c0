/**
 * `resolve_refs` (end of the fast path): resolve the checked Answer's citations against the complete
 * ledger, record unresolved ones, and hand the client `answer_done` — a fast, deterministically
 * checked Answer whose model checks are still `checking`.
 */
import { escalateAnswer } from '../confidence';
import { productEnvelope, productValidation } from '../envelope';
import { answerUsages, resolutionIssues, resolveReferences } from '../references';
import type { StagedEvent, StagedEventName, ProductEnvelope } from '../../answer';
import { stagedEvent } from '../events';
import { recordStep } from '../steps';
import { noteAnswerDone } from '../budget';
import { adoptReferences, noteEmitted } from '../slices/answer';
import { replaceIssues, settleAnswerValidation } from '../slices/validation';
import type { Stage, TurnState } from '../types';
import { checkDrugSafety } from './drug-safety';

/** Resolves the current Answer's references and raises `citation_resolution` for unknown indices. */
export function resolveAnswerReferences(turn: TurnState, grounding: 'checking' | 'unchecked'): void {
  if (!turn.answer.draft || !turn.context.ledger) return;
  adoptReferences(turn, resolveReferences(answerUsages(turn.answer.draft, 'answer'), turn.context.ledger, grounding));
  const unresolved = resolutionIssues(turn.answer.references);
  replaceIssues(turn, 'citation_resolution', unresolved);
  if (unresolved.length) escalateAnswer(turn, 'red', 'The answer cites a record that is not in the chart.');
}

/** The event, with the envelope captured as the last stable state a late failure restores (§3.3). */
export function stableEvent(turn: TurnState, name: StagedEventName): StagedEvent {
  const envelope = productEnvelope(turn);
  // The context summary is written once by the context stage and never changed after: it is shared,
  // not copied (it lists every record of the chart, the largest part of an envelope).
  const data: ProductEnvelope = structuredClone({ ...envelope, context: null });
  data.context = envelope.context;
  noteEmitted(turn, data);
  return stagedEvent(name, data);
}

/** Model checks still to come after the fast Answer (review, grounding, agreement). */
export function modelChecksPending(turn: TurnState): boolean {
  return turn.profile.stages.some((s) => s === 'review' || s === 'ground_verdicts' || s === 'agree');
}

export const resolveRefsStage: Stage = {
  name: 'resolve_refs',
  async *run(turn, deps) {
    // Drug safety checks the Answer before the client first sees it: answer_done and done agree.
    checkDrugSafety(turn, deps);
    // `checking` only while a model check is still to come; a plan with deterministic checks only
    // is final here, so answer_done says so (no client mistakes a settled Answer for a pending one).
    const pending = modelChecksPending(turn);
    resolveAnswerReferences(turn, pending ? 'checking' : 'unchecked');
    settleAnswerValidation(turn, productValidation(turn, pending ? 'checking' : 'final'));
    recordStep(turn, { role: 'resolve_refs', references: turn.answer.references.length, unresolved: turn.answer.references.filter((r) => r.resolutionStatus === 'unresolved').length });
    noteAnswerDone(turn);
    yield stableEvent(turn, 'answer_done');
  },
};
