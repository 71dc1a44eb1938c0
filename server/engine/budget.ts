/**
 * Per-call budget guard (§5.7): on exact-budget profiles every model call is counted exactly,
 * `max_tokens` is capped at the reserved output, and a call that cannot fit the window is refused
 * before it reaches the router. The count comes from the request-scoped cache, so a prompt the
 * selector already measured is not tokenized again.
 */
import { contextError } from '../errors';
import type { CallOptions, ChatRequest, ChatResult } from '../llm/types';
import { commonPrefix } from '../context/layout';
import { addUsage } from './usage';
import type { EngineDeps, TurnState } from './types';

export interface BudgetMeasurement {
  stage: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  context_window: number;
}

/** Applies the guard to a request body (mutating `max_tokens`) and records the measurement; returns the input tokens. */
export async function guardCall(turn: TurnState, stage: string, body: ChatRequest): Promise<number | null> {
  const budget = turn.profile.context;
  if (!budget.exactTokenizer || !turn.tokens) return null;
  const reserved = budget.reservedOutputTokens;
  const requested = typeof body.max_tokens === 'number' && body.max_tokens > 0 ? body.max_tokens : reserved;
  body.max_tokens = Math.min(requested, reserved);
  const input = await turn.tokens.countChat(body);
  turn.budgets.push({ stage, model: body.model, input_tokens: input, output_tokens: body.max_tokens, context_window: budget.window });
  if (input + body.max_tokens > budget.window) {
    throw contextError(
      'insufficient_context',
      422,
      'selector',
      `The ${stage} prompt for model '${body.model}' needs ${input} input tokens plus ${body.max_tokens} output tokens, more than its ${budget.window}-token window.`,
    );
  }
  return input;
}

function promptText(body: ChatRequest): string {
  return body.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
}

/**
 * Prefix share of a later stage with the Answer prompt (decision 8), for the trace. The router says
 * how many prompt tokens it reused from its cache (`cached_tokens`): every stage opens with the same
 * context message, so that is the shared prefix as the router actually used it, at no extra cost.
 * Only when the router reports no reuse is the shared text counted exactly (one /tokenize call), so
 * a layout regression and an evicted cache can be told apart.
 */
async function recordPrefixShare(turn: TurnState, stage: string, body: ChatRequest, inputTokens: number, cachedTokens: number | undefined): Promise<void> {
  if (turn.answerPrompt === null) return;
  const share = (shared: number, method: 'router_cache' | 'exact_count') => {
    const sharedTokens = Math.min(shared, inputTokens);
    turn.prefixShares.push({ stage, prompt_tokens: inputTokens, shared_prefix_tokens: sharedTokens, ratio: inputTokens > 0 ? sharedTokens / inputTokens : 0, method });
  };
  if (typeof cachedTokens === 'number' && cachedTokens > 0) return share(cachedTokens, 'router_cache');
  if (!turn.tokens) return;
  try {
    share(await turn.tokens.count(body.model, commonPrefix(turn.answerPrompt, promptText(body))), 'exact_count');
  } catch {
    // A trace figure must never fail the turn.
  }
}

/** A guarded, accounted model call: budget guard, slot-bound router call, usage summed on the turn. */
export async function callModel(turn: TurnState, deps: EngineDeps, stage: string, body: ChatRequest): Promise<ChatResult> {
  const inputTokens = await guardCall(turn, stage, body);
  const isAnswer = stage === 'answer' && turn.answerPrompt === null;
  if (isAnswer) turn.answerPrompt = promptText(body);
  const opts: CallOptions = { signal: turn.signal, slots: turn.slots };
  const result = await deps.router.chat(body, opts);
  addUsage(turn.usage, result.usage);
  deps.metrics?.observeModelCall({ queueWaitSeconds: result.queueWaitMs / 1000, promptTokens: result.usage.prompt_tokens, completionTokens: result.usage.completion_tokens });
  turn.timing.modelMs += result.routerMs;
  turn.timing.queueMs += result.queueWaitMs;
  if (!isAnswer && inputTokens !== null) await recordPrefixShare(turn, stage, body, inputTokens, result.usage.cached_tokens);
  return result;
}
