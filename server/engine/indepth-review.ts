/**
 * The one In-Depth review (§7.7 Target, decision 9): the reviewer reads the drafted claims once and
 * flags the ones it questions. Nothing is redrafted or removed; a flagged claim is marked (yellow)
 * with the reviewer's note, and an unavailable review keeps every claim, saying it was not reviewed.
 */
import { INDEPTH_VERDICT_RESPONSE_FORMAT, flagNotes, numberedClaims, parseInDepthVerdict } from '../checks/review';
import { promptLayout } from './fit';
import { stageMessages, type PromptLayout } from '../context';
import type { ChatRequest } from '../llm';
import { callChecker, checkerSampling } from './checker';
import { gatheredEvidence } from './gathered';
import { recordStep } from './steps';
import type { InDepthReviewState } from './slices/review';
import type { EngineDeps, TurnState } from './types';

export function inDepthReviewRequest(turn: TurnState, deps: EngineDeps, claims: readonly string[], layout: PromptLayout = 'joined'): ChatRequest {
  // The reviewer reads what the In-Depth writer read (§7.6): the gathered section, when anything was gathered.
  const gathered = gatheredEvidence(turn);
  const instructions = [
    deps.catalog.readPrompt(`${turn.profile.prompts.review!}-indepth`).trim(),
    ...(gathered ? [`=== GATHERED KB / EVIDENCE ===\n${gathered}`] : []),
    `=== DIRECT ANSWER ===\n${turn.answer.draft?.answer ?? ''}`,
    `=== IN-DEPTH CLAIMS ===\n${numberedClaims(claims)}`,
  ].join('\n\n');
  return {
    model: turn.profile.models.review!,
    messages: stageMessages(turn.context.contextMessage, { instructions, history: turn.context.conversation, question: turn.context.question }, layout),
    ...checkerSampling(turn, deps, 'review'),
    response_format: INDEPTH_VERDICT_RESPONSE_FORMAT,
  };
}

/** Whether the plan reviews its In-Depth: a review model and policy, and In-Depth is not the output itself. */
export function reviewsInDepth(turn: TurnState): boolean {
  return turn.profile.policies.review !== null && Boolean(turn.profile.models.review) && turn.profile.policies.output !== 'indepth';
}

export async function reviewInDepth(turn: TurnState, deps: EngineDeps, claims: readonly string[]): Promise<InDepthReviewState> {
  if (claims.length === 0) return { status: 'clean', notes: new Map() };
  const body = inDepthReviewRequest(turn, deps, claims, await promptLayout(turn, deps, turn.profile.models.review!));
  const outcome = await callChecker(turn, deps, 'indepth_review', body);
  const verdict = outcome.ok ? parseInDepthVerdict(outcome.result.content, claims.length) : null;
  const state: InDepthReviewState = verdict === null ? { status: 'unavailable', notes: new Map() } : { status: verdict.drop.length ? 'flagged' : 'clean', notes: flagNotes(verdict) };
  recordStep(turn, {
    role: 'indepth_review',
    model: body.model,
    status: state.status,
    flagged: [...state.notes.keys()],
    error: outcome.ok ? (verdict ? null : 'malformed') : outcome.error,
    prompt_tokens: outcome.ok ? outcome.result.usage.prompt_tokens : null,
  });
  return state;
}
