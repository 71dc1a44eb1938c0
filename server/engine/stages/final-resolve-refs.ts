/**
 * `final_resolve_refs`: re-resolve for the final Answer and settle `answerValidation`. Without a
 * review policy there is no grounding: resolved references stay `unchecked` with no label and do
 * not make the Answer unavailable (decision 16). Reviewed plans settle after grounding instead.
 */
import { productValidation } from '../envelope';
import type { Stage } from '../types';
import { resolveAnswerReferences } from './resolve-refs';

export const finalResolveRefsStage: Stage = {
  name: 'final_resolve_refs',
  async run(turn) {
    const grounded = turn.profile.policies.review !== null && turn.profile.policies.review.grounding !== 'off';
    resolveAnswerReferences(turn, grounded ? 'checking' : 'unchecked');
    turn.answerValidation = productValidation(turn, grounded ? 'checking' : 'final');
  },
};
