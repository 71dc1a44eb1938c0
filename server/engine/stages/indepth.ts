/**
 * `indepth` stage: announce `indepth_pending` with the settled Answer, then draft 1–3 claims from the
 * same shared context message (decision 8), the direct Answer after it. A non-substantive Answer is
 * not elaborated. Claims are checked by `indepth_gate`.
 */
import { promptLayout } from '../fit';
import { stageMessages, contentText, type PromptLayout } from '../../context';
import type { ChatRequest } from '../../llm';
import { callModel } from '../budget';
import { pendingInDepth } from '../envelope';
import { writerSampling } from '../sampling';
import { isSubstantive } from '../substance';
import { citationMarkers, type AnswerDraft } from '../../answer';
import { stripFences } from '../answer-parse';
import { recordStep } from '../steps';
import { adoptDraft, noteInDepthClaims, settleInDepth } from '../slices/answer';
import { dropHistoryMessage } from '../slices/context';
import { noteInDepthReview } from '../slices/review';
import type { EngineDeps, Stage, TurnState } from '../types';
import { stableEvent } from './resolve-refs';
import { reviewInDepth, reviewsInDepth } from '../indepth-review';
import { gatheredEvidence } from '../gathered';

const IN_DEPTH_RESPONSE_FORMAT = {
  type: 'json_schema',
  json_schema: {
    name: 'in_depth',
    strict: true,
    schema: { type: 'object', additionalProperties: false, required: ['claims'], properties: { claims: { type: 'array', items: { type: 'string' } } } },
  },
};

export function inDepthRequest(turn: TurnState, deps: EngineDeps, layout: PromptLayout = 'joined'): ChatRequest {
  const gathered = gatheredEvidence(turn);
  // The gathered section only when something was gathered: a plan without it keeps its prompt (and its cache).
  const instructions = `${deps.catalog.readPrompt(turn.profile.prompts.indepth!)}\n\n=== DIRECT ANSWER (elaborate THIS; do not restate it) ===\n${turn.answer.draft?.answer ?? ''}${gathered ? `\n\n=== GATHERED KB / EVIDENCE ===\n${gathered}` : ''}`;
  return {
    model: turn.profile.models.indepth!,
    messages: stageMessages(turn.context.contextMessage, { instructions, history: turn.context.conversation, question: turn.context.question }, layout),
    ...writerSampling(turn.profile, turn.request, deps.config, 'indepth'),
    response_format: IN_DEPTH_RESPONSE_FORMAT,
  };
}

/** `{"claims": [...]}` → trimmed non-empty strings; null when the reply is not that shape. */
export function parseClaims(content: string): string[] | null {
  const text = stripFences(content.trim()).trim();
  // The whole reply, else its outermost braces (a reply with prose or half a fence around the JSON).
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  for (const candidate of [text, first >= 0 && last > first ? text.slice(first, last + 1) : null]) {
    if (candidate === null) continue;
    try {
      const v: unknown = JSON.parse(candidate);
      if (!v || typeof v !== 'object' || !Array.isArray((v as { claims?: unknown }).claims)) return null;
      return ((v as { claims: unknown[] }).claims).filter((c): c is string => typeof c === 'string').map((c) => c.trim()).filter((c) => c !== '');
    } catch {
      // try the next candidate
    }
  }
  return null;
}

function lastAssistantDraft(turn: TurnState): AnswerDraft | null {
  // The message as sent (its [N] markers cite this chart), and no longer repeated as history.
  const last = [...turn.request.messages].reverse().find((m) => m.role === 'assistant');
  if (!last) return null;
  const at = turn.context.conversation.map((m) => m.role).lastIndexOf('assistant');
  if (at >= 0) dropHistoryMessage(turn, at);
  const answer = contentText(last.content).trim();
  return { answer, citations: citationMarkers(answer), declared: [], blocks: [], rawBlocks: [], structured: false };
}

export const inDepthStage: Stage = {
  name: 'indepth',
  async *run(turn, deps) {
    // A plan without an answer stage (the `indepth-only:` leg) elaborates the conversation's last
    // assistant message (§4.5).
    if (!turn.answer.draft) adoptDraft(turn, lastAssistantDraft(turn));
    settleInDepth(turn, pendingInDepth());
    yield stableEvent(turn, 'indepth_pending');
    if (!turn.answer.draft || !isSubstantive(turn.answer.draft.answer)) {
      settleInDepth(turn, { status: 'needs_review', answer: '', error: 'In-Depth was withheld because the final Answer was not substantive.', validation: null });
      recordStep(turn, { role: 'indepth_withheld', reason: 'answer_not_substantive' });
      return;
    }
    const body = inDepthRequest(turn, deps, await promptLayout(turn, deps, turn.profile.models.indepth!));
    const result = await callModel(turn, deps, 'indepth', body);
    const claims = parseClaims(result.content);
    recordStep(turn, { role: 'indepth_synth', model: body.model, claims: claims?.length ?? null, prompt_tokens: result.usage.prompt_tokens, completion_tokens: result.usage.completion_tokens });
    if (claims === null) {
      settleInDepth(turn, { status: 'needs_review', answer: '', error: 'In-Depth could not be generated: the model reply was not the expected list of claims.', validation: null });
      return;
    }
    noteInDepthClaims(turn, claims);
    if (reviewsInDepth(turn)) noteInDepthReview(turn, await reviewInDepth(turn, deps, claims));
  },
};
