/**
 * `final_resolve_refs`: re-resolve for the final Answer and settle `answerValidation`. Without a
 * review policy there is no grounding: resolved references stay `unchecked` with no label and do
 * not make the Answer unavailable (decision 16). Reviewed plans settle after grounding instead.
 */
import { productValidation } from '../envelope';
import { settleAnswerValidation } from '../slices/validation';
import type { Stage } from '../types';
import { modelChecksPending, resolveAnswerReferences } from './resolve-refs';

export const finalResolveRefsStage: Stage = {
  name: 'final_resolve_refs',
  async run(turn) {
    const pending = modelChecksPending(turn);
    resolveAnswerReferences(turn, pending ? 'checking' : 'unchecked');
    // Keep the settled time of answer_done when nothing changed since (identical envelopes).
    const before = turn.validation.answerValidation;
    const next = productValidation(turn, pending ? 'checking' : 'final');
    const settled = before && before.status === next.status && JSON.stringify({ ...before, completedAt: 0 }) === JSON.stringify({ ...next, completedAt: 0 }) ? before : next;
    settleAnswerValidation(turn, settled);
  },
};
