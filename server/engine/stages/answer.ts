/** `answer` stage: one writer call over the shared context message, parsed into an Answer draft. */
import { stageMessages } from '../../context/layout';
import type { ChatMessageLike } from '../../context/inline-chart';
import type { ChatRequest } from '../../llm/types';
import { parseAnswer } from '../answer-parse';
import { callModel } from '../budget';
import { CHART_ANSWER_RESPONSE_FORMAT } from '../chart-answer-schema';
import { writerSampling } from '../sampling';
import type { EngineDeps, Stage, TurnState } from '../types';

/**
 * The Answer request for a given context message and history. The context stage measures exactly
 * this request while selecting records, so dispatch reuses the cached count (§5.9).
 */
export function answerRequest(turn: TurnState, deps: EngineDeps, contextMessage: string, history: readonly ChatMessageLike[]): ChatRequest {
  const { profile, request } = turn;
  const body: ChatRequest = {
    model: profile.models.answer!,
    messages: stageMessages(contextMessage, { instructions: deps.catalog.readPrompt(profile.prompts.answer!), history, question: turn.question }),
    ...writerSampling(profile, request, deps.config),
  };
  // Product and chart_answer profiles own the schema; legs keep the caller's response_format (§3.9).
  const responseFormat = profile.policies.answerContract === 'chart_answer' ? CHART_ANSWER_RESPONSE_FORMAT : request.response_format;
  if (responseFormat) body.response_format = responseFormat as Record<string, unknown>;
  return body;
}

export const answerStage: Stage = {
  name: 'answer',
  async run(turn, deps) {
    const body = answerRequest(turn, deps, turn.contextMessage, turn.conversation);
    const result = await callModel(turn, deps, 'answer', body);
    turn.draft = parseAnswer(result.content);
    turn.steps.push({
      role: 'answer_synth',
      model: body.model,
      structured: turn.draft.structured,
      prompt_tokens: result.usage.prompt_tokens,
      completion_tokens: result.usage.completion_tokens,
      queue_wait_ms: result.queueWaitMs,
      router_ms: result.routerMs,
    });
  },
};
