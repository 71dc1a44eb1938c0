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
import { noteAnswerCount, proveFit, type FitProof } from './fit';
import type { EngineDeps, PromptEvaluation, TurnState } from './types';

export interface BudgetMeasurement {
  stage: string;
  model: string;
  /** Exact prompt tokens: counted before the call, or (method `byte_bound`) the router's reported figure after it. */
  input_tokens: number | null;
  output_tokens: number;
  context_window: number;
  /** Present when fit was proven without a pre-call count (decisions 24, 27): how, and the bound that proved it. */
  method?: 'byte_bound';
  input_bound?: number;
  /** What the bound stands on: the Answer's exact count plus this stage's own bytes, or the prompt's bytes alone. */
  input_bound_basis?: FitProof['basis'];
  /** Why `input_tokens` stayed null after a `byte_bound` call. */
  input_tokens_unavailable?: string;
}

/**
 * Applies the guard to a request body (mutating `max_tokens`) and records the measurement. A prompt
 * already counted (the Answer, measured by selection) uses that count; otherwise a sound upper bound
 * that fits the window (decisions 24, 27) spares the pre-call count; otherwise it is counted exactly
 * and a call that cannot fit is refused before it reaches the router.
 */
export async function guardCall(turn: TurnState, deps: Pick<EngineDeps, 'fitBounds'>, stage: string, body: ChatRequest): Promise<BudgetMeasurement | null> {
  const budget = turn.profile.context;
  if (!budget.exactTokenizer || !turn.tokens) return null;
  const reserved = budget.reservedOutputTokens;
  const requested = typeof body.max_tokens === 'number' && body.max_tokens > 0 ? body.max_tokens : reserved;
  body.max_tokens = Math.min(requested, reserved);
  const measurement: BudgetMeasurement = { stage, model: body.model, input_tokens: null, output_tokens: body.max_tokens, context_window: budget.window };
  const known = turn.tokens.knownChatCount(body);
  const proof = known ? null : await proveFit(turn, deps, body);
  if (proof !== null && proof.bound + body.max_tokens <= budget.window) {
    measurement.method = 'byte_bound';
    measurement.input_bound = proof.bound;
    measurement.input_bound_basis = proof.basis;
    turn.budgets.push(measurement);
    return measurement;
  }
  const input = await (known ?? turn.tokens.countChat(body));
  measurement.input_tokens = input;
  turn.budgets.push(measurement);
  if (input + body.max_tokens > budget.window) {
    throw contextError(
      'insufficient_context',
      'selector',
      `The ${stage} prompt for model '${body.model}' needs ${input} input tokens plus ${body.max_tokens} output tokens, more than its ${budget.window}-token window.`,
    );
  }
  return measurement;
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

/** The engine's own figures of what it evaluated (only backends that know them report them). */
function notePromptEvaluation(pe: PromptEvaluation, stage: string, result: ChatResult): void {
  const e = result.promptEvaluation;
  if (!e) return;
  const prompt = result.usage.prompt_tokens;
  pe.stages.push({ stage, prompt_tokens: prompt, evaluated_tokens: e.evaluatedTokens, new_unique_tokens: e.newUniqueTokens });
  pe.prompt_tokens += prompt;
  pe.evaluated_tokens += e.evaluatedTokens;
  pe.unique_tokens = pe.unique_tokens === null || e.newUniqueTokens === null ? null : pe.unique_tokens + e.newUniqueTokens;
}

/** A guarded, accounted model call: budget guard, slot-bound router call, usage summed on the turn. */
export async function callModel(turn: TurnState, deps: EngineDeps, stage: string, body: ChatRequest): Promise<ChatResult> {
  const measurement = await guardCall(turn, deps, stage, body);
  const isAnswer = stage === 'answer' && turn.answerPrompt === null;
  if (isAnswer) turn.answerPrompt = promptText(body);
  const opts: CallOptions = { signal: turn.signal, slots: turn.slots, turnKey: turn };
  const result = await deps.router.chat(body, opts);
  // A call proven to fit without a count: the router's own figure is the exact one (decision 24). A
  // router that reports no usage leaves it missing, with the reason, never a guessed zero.
  if (measurement?.method === 'byte_bound') {
    if (result.usage.prompt_tokens > 0) measurement.input_tokens = result.usage.prompt_tokens;
    else measurement.input_tokens_unavailable = 'router_reported_no_prompt_tokens';
  }
  // The Answer's exact figure is what later stages' bounds stand on (decision 27).
  if (stage === 'answer' && measurement?.input_tokens != null) noteAnswerCount(turn, body, measurement.input_tokens);
  addUsage(turn.usage, result.usage);
  notePromptEvaluation(turn.promptEvaluation, stage, result);
  deps.metrics?.observeModelCall({ queueWaitSeconds: result.queueWaitMs / 1000, promptTokens: result.usage.prompt_tokens, completionTokens: result.usage.completion_tokens });
  turn.timing.modelMs += result.routerMs;
  turn.timing.queueMs += result.queueWaitMs;
  if (!isAnswer && measurement?.input_tokens != null) await recordPrefixShare(turn, stage, body, measurement.input_tokens, result.usage.cached_tokens);
  return result;
}
