/**
 * The `answer-review:` leg reviews an Answer the caller sends as `answer_to_review.v1` in the last
 * user message (§7.3, §4.4). Before the model review, the deterministic temporal gate reads it:
 * in `enforce` a failure with a patch adopts the hub's own deterministic patch (`edited`); a failure
 * without one keeps the text and makes it `needs_review` — the leg never swaps in a fallback text.
 */
import { contentText } from '../context';
import { parseAnswerToReview } from '../checks/review';
import { runTemporalGate } from '../checks/temporal';
import { validBlocks } from './answer-parse';
import { mergeGateConfidence } from './confidence';
import { gateText } from './stages/gate';
import type { AnswerDraft } from '../answer';
import { recordStep } from './steps';
import { adoptDraft, settleCheckedDraft } from './slices/answer';
import { adoptReviewedQuestion } from './slices/context';
import { raiseIssues, recordTemporalGate } from './slices/validation';
import type { TurnState } from './types';

export function loadReviewPayload(turn: TurnState): void {
  const last = [...turn.request.messages].reverse().find((m) => m.role === 'user');
  const payload = last ? parseAnswerToReview(contentText(last.content)) : null;
  recordStep(turn, { role: 'review_payload', found: payload !== null });
  if (!payload) {
    adoptDraft(turn, null);
    return;
  }
  if (payload.original_question.trim() !== '') adoptReviewedQuestion(turn, payload.original_question);
  const blocks = validBlocks(payload.blocks);
  const draft: AnswerDraft = { answer: payload.answer.trim(), citations: payload.citations, declared: payload.citations, blocks, rawBlocks: payload.blocks, structured: true };
  adoptDraft(turn, draft);

  const result = runTemporalGate({ question: turn.context.question, answer: gateText(draft), citations: draft.citations, facts: turn.context.facts, mode: turn.temporal.mode });
  const patched = result.mode === 'enforce' && result.status === 'fail' && result.patch_answer !== null;
  raiseIssues(turn, result.checks.filter((c) => c.status !== 'pass').map((c) => (patched && c.status === 'fail' ? { ...c, resolved_by: 'patch' } : { ...c })));
  recordTemporalGate(turn, { ...result, applied: patched ? 'patch' : 'none' });
  mergeGateConfidence(turn);
  if (patched) {
    settleCheckedDraft(turn, { ...draft, answer: result.patch_answer!, citations: [...result.patch_citations], blocks: [] }, draft);
  }
  recordStep(turn, { role: 'temporal_gate', mode: result.mode, status: result.status, applied: patched ? 'patch' : 'none', n_checks: result.checks.length });
}
