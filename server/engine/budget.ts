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
 * Prefix share of a later stage with the Answer prompt (decision 8), for the trace. Counted on the
 * shared text with the exact counter while the stage's own model call runs (no slot is taken).
 */
async function measurePrefixShare(turn: TurnState, stage: string, body: ChatRequest, inputTokens: number): Promise<void> {
  if (!turn.tokens || turn.answerPrompt === null) return;
  try {
    const shared = await turn.tokens.count(body.model, commonPrefix(turn.answerPrompt, promptText(body)));
    const sharedTokens = Math.min(shared, inputTokens);
    turn.prefixShares.push({ stage, prompt_tokens: inputTokens, shared_prefix_tokens: sharedTokens, ratio: inputTokens > 0 ? sharedTokens / inputTokens : 0 });
  } catch {
    // A trace figure must never fail the turn.
  }
}

/** A guarded, accounted model call: budget guard, slot-bound router call, usage summed on the turn. */
export async function callModel(turn: TurnState, deps: EngineDeps, stage: string, body: ChatRequest): Promise<ChatResult> {
  const inputTokens = await guardCall(turn, stage, body);
  let share: Promise<void> = Promise.resolve();
  if (stage === 'answer' && turn.answerPrompt === null) turn.answerPrompt = promptText(body);
  else if (inputTokens !== null) share = measurePrefixShare(turn, stage, body, inputTokens);
  const opts: CallOptions = { signal: turn.signal, slots: turn.slots };
  try {
    const result = await deps.router.chat(body, opts);
    addUsage(turn.usage, result.usage);
    deps.metrics?.observeModelCall({ queueWaitSeconds: result.queueWaitMs / 1000, promptTokens: result.usage.prompt_tokens, completionTokens: result.usage.completion_tokens });
    turn.timing.modelMs += result.routerMs;
    turn.timing.queueMs += result.queueWaitMs;
    return result;
  } finally {
    await share;
  }
}
