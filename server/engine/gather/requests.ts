/**
 * The two kinds of gather calls (hub-contract §4.4, §4.6). Both open with the turn's shared context
 * message (decision 8), so the orchestrator and the expert read the same evidence ledger the Answer
 * reads — knowledge-base records included when the profile declares that source — and the router's
 * prompt cache reads it once. Neither carries `response_format`: tool turns are plain calls.
 */
import { stageMessages } from '../../context';
import type { ChatMessage, ChatRequest } from '../../llm';
import type { EngineDeps, TurnState } from '../types';
import { EXPERT_TOOL } from './tool';

/** The expert's output cap (§4.6): notes, not a second Answer. */
const EXPERT_MAX_TOKENS = 800;
const EXPERT_TEMPERATURE = 0.1;

/** The orchestrator's opening message: shared context, its prompt, the history and the question. */
export function orchestratorMessages(turn: TurnState, deps: EngineDeps): ChatMessage[] {
  const instructions = deps.catalog.readPrompt(turn.profile.prompts.orchestrator!);
  return stageMessages(turn.context.contextMessage, { instructions, history: turn.context.conversation, question: turn.context.question });
}

/** One orchestrator call over the conversation so far; `medical_expert` is offered only with an expert model. */
export function orchestratorRequest(turn: TurnState, deps: EngineDeps, messages: readonly ChatMessage[]): ChatRequest {
  const { profile, request } = turn;
  const knobs = profile.knobs.orchestrator ?? {};
  const body: ChatRequest = {
    model: profile.models.orchestrator!,
    messages: [...messages],
    temperature: knobs.temperature ?? request.temperature ?? deps.config.llmTemperature,
    dry_multiplier: knobs.dry ?? deps.config.orchestratorDryMultiplier,
    max_tokens: knobs.max_tokens ?? (profile.context.exactTokenizer ? profile.context.reservedOutputTokens : deps.config.llmMaxTokens),
  };
  if (knobs.repeat_penalty !== undefined) body.repeat_penalty = knobs.repeat_penalty;
  if (profile.models.expert) {
    body.tools = [EXPERT_TOOL];
    body.tool_choice = 'auto';
    // One consultation per iteration keeps the loop's bound a bound on expert calls too.
    body.parallel_tool_calls = false;
  }
  return body;
}

/** The expert's call: the same context message, its prompt and the orchestrator's question. */
export function expertRequest(turn: TurnState, deps: EngineDeps, query: string): ChatRequest {
  const { profile } = turn;
  const knobs = profile.knobs.expert ?? {};
  const instructions = `${deps.catalog.readPrompt(profile.prompts.expert!)}\n\n=== CONSULT REQUEST (from the orchestrator) ===\n${query}`;
  const body: ChatRequest = {
    model: profile.models.expert!,
    messages: stageMessages(turn.context.contextMessage, { instructions, history: [], question: turn.context.question }),
    temperature: knobs.temperature ?? EXPERT_TEMPERATURE,
    dry_multiplier: knobs.dry ?? deps.config.expertDryMultiplier,
    max_tokens: knobs.max_tokens ?? EXPERT_MAX_TOKENS,
  };
  if (knobs.repeat_penalty !== undefined) body.repeat_penalty = knobs.repeat_penalty;
  return body;
}
