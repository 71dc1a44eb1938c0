/** `answer` stage: one writer call over the shared context message, parsed into an Answer draft. */
import { stageMessages, type PromptLayout, type ChatMessageLike } from '../../context';
import type { SharedBlock, ChatRequest } from '../../llm';
import { parseAnswer } from '../answer-parse';
import { callModel } from '../budget';
import { promptLayout } from '../fit';
import { CHART_ANSWER_RESPONSE_FORMAT } from '../chart-answer-schema';
import { gatheredNotes } from '../gather/gathered';
import { writerSampling } from '../sampling';
import { FALLBACK_ANSWER, isSubstantive } from '../substance';
import type { AnswerDraft } from '../../answer';
import { recordStep } from '../steps';
import { adoptDraft, settleAnswerConfidence } from '../slices/answer';
import { raiseIssues } from '../slices/validation';
import type { EngineDeps, Stage, TurnState } from '../types';

/**
 * The Answer request for a given context message and history. The context stage measures exactly
 * this request while selecting records, so dispatch reuses the cached count (§5.9).
 */
export function answerRequest(
  turn: TurnState,
  deps: EngineDeps,
  contextMessage: SharedBlock,
  history: readonly ChatMessageLike[],
  layout: PromptLayout,
  role: 'answer' | 'second' = 'answer',
): ChatRequest {
  const { profile, request } = turn;
  // The second writer (§7.9) answers the same question from the same context, independently.
  const prompt = profile.prompts[role] ?? profile.prompts.answer!;
  // Team gather's expert notes (§7.1: `<answer prompt>\n\n<gathered>`) follow the instructions, never
  // the shared context message, so the context prefix stays byte-identical across stages (decision 8).
  // Knowledge-base records reach the Answer through the ledger, so only the notes are added here.
  const gathered = gatheredNotes(turn);
  const instructions = deps.catalog.readPrompt(prompt) + (gathered === '' ? '' : `\n\n${gathered}`);
  const body: ChatRequest = {
    model: profile.models[role]!,
    messages: stageMessages(contextMessage, { instructions, history, question: turn.context.question }, layout),
    ...writerSampling(profile, request, deps.config, role),
  };
  // Product and chart_answer profiles own the schema; legs keep the caller's response_format (§3.9).
  const responseFormat = profile.policies.answerContract === 'chart_answer' ? CHART_ANSWER_RESPONSE_FORMAT : request.response_format;
  if (responseFormat) body.response_format = responseFormat as Record<string, unknown>;
  return body;
}

async function synthesize(turn: TurnState, deps: EngineDeps, role: 'answer_synth' | 'answer_resynth'): Promise<AnswerDraft> {
  const layout = await promptLayout(turn, deps, turn.profile.models.answer!);
  const body = answerRequest(turn, deps, turn.context.contextMessage, turn.context.conversation, layout);
  const result = await callModel(turn, deps, 'answer', body);
  let draft = parseAnswer(result.content);
  // A hub-owned Answer must be the chart_answer JSON: free text (or a truncated reply) is not shown
  // as if it had been written to the contract — it counts as no answer (§7.1) and is written again.
  if (turn.profile.policies.answerContract === 'chart_answer' && !draft.structured) draft = { ...draft, answer: '', citations: [], blocks: [], rawBlocks: [] };
  recordStep(turn, {
    role,
    model: body.model,
    structured: draft.structured,
    substantive: isSubstantive(draft.answer),
    prompt_tokens: result.usage.prompt_tokens,
    completion_tokens: result.usage.completion_tokens,
    queue_wait_ms: result.queueWaitMs,
    router_ms: result.routerMs,
  });
  return draft;
}

function fallbackDraft(): AnswerDraft {
  return { answer: FALLBACK_ANSWER, citations: [], declared: [], blocks: [], rawBlocks: [], structured: false };
}

export const answerStage: Stage = {
  name: 'answer',
  async run(turn, deps) {
    let draft = await synthesize(turn, deps, 'answer_synth');
    // The substance gate (§7.1) guards hub-owned Answers; legs return what the writer said.
    if (turn.profile.policies.answerContract === 'chart_answer' && !isSubstantive(draft.answer)) {
      const loops = Math.max(1, turn.profile.policies.reviewLoops);
      let attempts = 1;
      for (; attempts <= loops && !isSubstantive(draft.answer); attempts++) draft = await synthesize(turn, deps, 'answer_resynth');
      if (isSubstantive(draft.answer)) {
        settleAnswerConfidence(turn, { level: 'yellow', note: 'An initial draft was not a usable answer; it was written again.' });
      } else {
        draft = fallbackDraft();
        settleAnswerConfidence(turn, { level: 'red', note: 'The writer did not produce a usable answer.' });
        raiseIssues(turn, [{ id: 'substance_gate', status: 'fail', severity: 'block', reason: 'The model did not produce a substantive answer.', source_indices: [] }]);
      }
      recordStep(turn, { role: 'substance_gate', substantive: isSubstantive(draft.answer), attempts });
    }
    adoptDraft(turn, draft);
  },
};
