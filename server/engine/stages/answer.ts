/** `answer` stage: one writer call over the shared context message, parsed into an Answer draft. */
import { stageMessages } from '../../context/layout';
import type { ChatRequest } from '../../llm/types';
import { parseAnswer } from '../answer-parse';
import { CHART_ANSWER_RESPONSE_FORMAT } from '../chart-answer-schema';
import { addUsage } from '../usage';
import { writerSampling } from '../sampling';
import type { Stage } from '../types';

export const answerStage: Stage = {
  name: 'answer',
  async run(turn, deps) {
    const { profile, request } = turn;
    const model = profile.models.answer!;
    const instructions = deps.catalog.readPrompt(profile.prompts.answer!);
    const body: ChatRequest = {
      model,
      messages: stageMessages(turn.contextMessage, { instructions, history: turn.conversation, question: turn.question }),
      ...writerSampling(profile, request, deps.config),
    };
    // Product and chart_answer profiles own the schema; legs keep the caller's response_format (§3.9).
    const responseFormat = profile.policies.answerContract === 'chart_answer' ? CHART_ANSWER_RESPONSE_FORMAT : request.response_format;
    if (responseFormat) body.response_format = responseFormat as Record<string, unknown>;
    const result = await deps.router.chat(body, { signal: turn.signal, slots: turn.slots });
    addUsage(turn.usage, result.usage);
    turn.draft = parseAnswer(result.content);
    turn.steps.push({
      role: 'answer_synth',
      model,
      structured: turn.draft.structured,
      prompt_tokens: result.usage.prompt_tokens,
      completion_tokens: result.usage.completion_tokens,
      queue_wait_ms: result.queueWaitMs,
      router_ms: result.routerMs,
    });
  },
};
