/**
 * `review` stage (§7.3 Target, decision 9): a second model reads the Answer against the chart and
 * LABELS it — it never replaces a word. A flag counts only when it quotes the answer and points at
 * the chart; a flag against an earliest/latest statement the dated series confirm is set aside.
 * With folded grounding the reviewer also lists, per cited statement, the facts it found.
 */
import {
  REWRITE_VERDICT_RESPONSE_FORMAT,
  confirmedStatements,
  judgeReview,
  parseRewriteVerdict,
  renderConfirmed,
  type ConfirmedStatement,
} from '../../checks/review';
import { GROUNDING_RESPONSE_FORMAT, factCheckPrompt, groundingPairs, sourceLines, type GroundingPair } from '../../checks/grounding';
import { promptLayout } from '../fit';
import { stageMessages, type PromptLayout } from '../../context';
import type { ChatRequest } from '../../llm';
import { callChecker, checkerSampling } from '../checker';
import { escalateAnswer } from '../confidence';
import { loadReviewPayload } from '../review-payload';
import { isSubstantive } from '../substance';
import { recordStep } from '../steps';
import { noteAnswerReview } from '../slices/review';
import { raiseIssues } from '../slices/validation';
import type { EngineDeps, Stage, TurnState } from '../types';
import { gatheredNotes } from '../gather/gathered';
import { gateText } from './gate';

const FOLDED_INSTRUCTIONS =
  'Also judge each cited statement below against its SOURCE lines: list the patient facts it gives and mark each "found", "differs" (copy what the source says) or "not_found". Put them under "pairs" as {"pair": <number>, "facts": [{"fact", "status", "source_says"}]}, one entry per pair, in order.';

/** rewrite_verdict, plus the grounding `pairs` when citation verdicts are folded into the review. */
function reviewResponseFormat(folded: boolean): Record<string, unknown> {
  if (!folded) return REWRITE_VERDICT_RESPONSE_FORMAT;
  const base = structuredClone(REWRITE_VERDICT_RESPONSE_FORMAT) as { json_schema: { schema: { properties: Record<string, unknown> } } };
  const grounding = GROUNDING_RESPONSE_FORMAT as { json_schema: { schema: { properties: { pairs: unknown } } } };
  base.json_schema.schema.properties.pairs = grounding.json_schema.schema.properties.pairs;
  return base as unknown as Record<string, unknown>;
}

function chartText(turn: TurnState): string {
  return (turn.context.ledger?.records ?? []).map((r, i) => `[${i + 1}] ${r.date ?? ''} ${r.text}`).join('\n');
}

export function reviewRequest(
  turn: TurnState,
  deps: EngineDeps,
  pairs: readonly GroundingPair[],
  confirmed: readonly ConfirmedStatement[],
  layout: PromptLayout = 'joined',
): ChatRequest {
  const draft = turn.answer.draft!;
  const parts = [deps.catalog.readPrompt(`${turn.profile.prompts.review!}-answer`).trim()];
  const confirmedBlock = renderConfirmed(confirmed);
  if (confirmedBlock) parts.push(confirmedBlock);
  // The reviewer reads what the writer read (§7.3): team gather's expert notes, when there are any.
  const gathered = gatheredNotes(turn).trim();
  if (gathered) parts.push(`=== GATHERED KB / EVIDENCE ===\n${gathered}`);
  parts.push(`=== DRAFT ANSWER ===\n${draft.answer}`);
  const rows = gateText({ answer: '', blocks: draft.blocks });
  if (rows) parts.push(`=== STRUCTURED BLOCK TEXT ===\n${rows}`);
  if (pairs.length > 0) {
    const byIndex = new Map(turn.answer.references.map((r) => [r.index, r.sourceText ?? null]));
    const items = pairs.map((p) => ({ statement: p.claim, sources: sourceLines(p.sourceIndices, (i) => byIndex.get(i) ?? null) }));
    parts.push(`=== CITED STATEMENTS ===\n${FOLDED_INSTRUCTIONS}\n\n${factCheckPrompt(items)}`);
  }
  return {
    model: turn.profile.models.review!,
    // The shared context message first (decision 8): the router has it cached from the Answer.
    messages: stageMessages(turn.context.contextMessage, { instructions: parts.join('\n\n'), history: turn.context.conversation, question: turn.context.question }, layout),
    ...checkerSampling(turn, deps, 'review'),
    response_format: reviewResponseFormat(pairs.length > 0),
  };
}

export const reviewStage: Stage = {
  name: 'review',
  async run(turn, deps) {
    // The `answer-review:` leg reviews an Answer the caller sends (§4.4); product plans review their own.
    if (turn.profile.policies.output === 'review') loadReviewPayload(turn);
    const draft = turn.answer.draft;
    if (!draft) {
      // §7.3 step 1: nothing to review is an unavailable check, not a judgement of an Answer.
      noteAnswerReview(turn, { status: 'unavailable', foldedPairs: null, pairs: [] });
      raiseIssues(turn, [{ id: 'answer_review_unavailable', status: 'warn', severity: 'warn', reason: 'There was no answer to review.' }]);
      escalateAnswer(turn, 'yellow', 'There was no answer to review.');
      recordStep(turn, { role: 'answer_review', status: 'unavailable', reason: 'no_answer' });
      return;
    }
    if (!isSubstantive(draft.answer)) {
      noteAnswerReview(turn, { status: 'needs_review', foldedPairs: null, pairs: [] });
      if (!turn.validation.issues.some((i) => i.id === 'substance_gate')) {
        raiseIssues(turn, [{ id: 'substance_gate', status: 'fail', severity: 'block', reason: 'The answer to review is not substantive.', source_indices: [] }]);
      }
      escalateAnswer(turn, 'red', 'There was no usable answer to review.');
      recordStep(turn, { role: 'answer_review', status: 'needs_review', reason: 'not_substantive' });
      return;
    }
    const folded = turn.profile.policies.review?.grounding === 'folded';
    const pairs = folded ? groundingPairs(turn.answer.references, ['answer', 'block']) : [];
    // The statements the reviewer is told are confirmed are the ones its flags are judged against.
    const confirmed = confirmedStatements(turn.context.facts);
    const body = reviewRequest(turn, deps, pairs, confirmed, await promptLayout(turn, deps, turn.profile.models.review!));
    const outcome = await callChecker(turn, deps, 'review', body);
    const verdict = outcome.ok ? parseRewriteVerdict(outcome.result.content) : null;
    const judgement = judgeReview(verdict, {
      reviewedText: gateText(draft),
      ledgerSize: turn.context.ledger?.records.length ?? 0,
      chartText: chartText(turn),
      confirmed,
    });
    raiseIssues(turn, judgement.issues);
    // Label only: a flag or an unavailable review makes the Answer yellow; its text is never touched.
    if (judgement.status !== 'checked') escalateAnswer(turn, 'yellow', judgement.note);
    noteAnswerReview(turn, { status: judgement.status, foldedPairs: verdict?.pairs ?? null, pairs });
    recordStep(turn, {
      role: 'answer_review',
      model: body.model,
      status: judgement.status,
      counted: judgement.counted.length,
      doubts: judgement.issues.filter((i) => i.id === 'review_doubt').length,
      set_aside: judgement.issues.filter((i) => i.id === 'review_set_aside').length,
      folded_pairs: pairs.length,
      error: outcome.ok ? (verdict ? null : 'malformed') : outcome.error,
      prompt_tokens: outcome.ok ? outcome.result.usage.prompt_tokens : null,
      completion_tokens: outcome.ok ? outcome.result.usage.completion_tokens : null,
    });
  },
};
