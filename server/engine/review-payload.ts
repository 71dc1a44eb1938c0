/**
 * The `answer-review:` leg reviews an Answer the caller sends as `answer_to_review.v1` in the last
 * user message (§7.3, §4.4). Before the model review, the deterministic temporal gate reads it:
 * in `enforce` a failure with a patch adopts the hub's own deterministic patch (`edited`); a failure
 * without one keeps the text and makes it `needs_review` — the leg never swaps in a fallback text.
 */
import { contentText } from '../context/inline-chart';
import { parseAnswerToReview } from '../checks/review';
import { runTemporalGate } from '../checks/temporal/gate';
import { validBlocks } from './answer-parse';
import { mergeGateConfidence } from './confidence';
import { gateText } from './stages/gate';
import type { AnswerDraft } from '../answer/types';
import type { TurnState } from './types';

export function loadReviewPayload(turn: TurnState): void {
  const last = [...turn.request.messages].reverse().find((m) => m.role === 'user');
  const payload = last ? parseAnswerToReview(contentText(last.content)) : null;
  turn.steps.push({ role: 'review_payload', found: payload !== null });
  if (!payload) {
    turn.draft = null;
    return;
  }
  if (payload.original_question.trim() !== '') turn.question = payload.original_question;
  const blocks = validBlocks(payload.blocks);
  const draft: AnswerDraft = { answer: payload.answer.trim(), citations: payload.citations, declared: payload.citations, blocks, rawBlocks: payload.blocks, structured: true };
  turn.draft = draft;

  const result = runTemporalGate({ question: turn.question, answer: gateText(draft), citations: draft.citations, facts: turn.facts, mode: turn.temporal.mode });
  const patched = result.mode === 'enforce' && result.status === 'fail' && result.patch_answer !== null;
  turn.issues.push(...result.checks.filter((c) => c.status !== 'pass').map((c) => (patched && c.status === 'fail' ? { ...c, resolved_by: 'patch' } : { ...c })));
  turn.temporalGate = { ...result, applied: patched ? 'patch' : 'none' };
  mergeGateConfidence(turn);
  if (patched) {
    turn.originalDraft = draft;
    turn.draft = { ...draft, answer: result.patch_answer!, citations: [...result.patch_citations], blocks: [] };
  }
  turn.steps.push({ role: 'temporal_gate', mode: result.mode, status: result.status, applied: patched ? 'patch' : 'none', n_checks: result.checks.length });
}
