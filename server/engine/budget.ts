/**
 * Per-call budget guard (§5.7): on exact-budget profiles every model call is counted exactly,
 * `max_tokens` is capped at the reserved output, and a call that cannot fit the window is refused
 * before it reaches the router. The count comes from the request-scoped cache, so a prompt the
 * selector already measured is not tokenized again.
 */
import { contextError } from '../errors';
import type { CallOptions, ChatRequest, ChatResult } from '../llm/types';
import { addUsage } from './usage';
import type { EngineDeps, TurnState } from './types';

export interface BudgetMeasurement {
  stage: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  context_window: number;
}

/** Applies the guard to a request body (mutating `max_tokens`) and records the measurement. */
export async function guardCall(turn: TurnState, stage: string, body: ChatRequest): Promise<void> {
  const budget = turn.profile.context;
  if (!budget.exactTokenizer || !turn.tokens) return;
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
}

/** A guarded, accounted model call: budget guard, slot-bound router call, usage summed on the turn. */
export async function callModel(turn: TurnState, deps: EngineDeps, stage: string, body: ChatRequest): Promise<ChatResult> {
  await guardCall(turn, stage, body);
  const opts: CallOptions = { signal: turn.signal, slots: turn.slots };
  const result = await deps.router.chat(body, opts);
  addUsage(turn.usage, result.usage);
  return result;
}
