/**
 * Per-call budget guard (§5.7): on exact-budget profiles every model call is counted exactly,
 * `max_tokens` is capped at the reserved output, and a call that cannot fit the window is refused
 * before it reaches the router. The count comes from the request-scoped cache, so a prompt the
 * selector already measured is not tokenized again.
 */
import { contextError } from '../errors';
import type { CallOptions, ChatRequest, ChatResult, SlotEvidence, Usage, TokenCounter } from '../llm';
import { commonPrefix } from '../context';
import { addUsage } from './usage';
import { errorTypeOf } from '../telemetry';
import { noteAnswerCount, proveFit } from './fit';
import type { AccountingSlice, BudgetMeasurement, PrefixShare, PromptEvaluation } from './slices/accounting';
import type { Writable } from './slices/writable';
import type { EngineDeps, TurnState } from './types';

type HasAccounting = { readonly accounting: AccountingSlice };

/** The slice as this module writes it: its fields and the figures inside them writable. */
type AccountingWrites = Writable<AccountingSlice> & {
  usage: Usage;
  timing: { modelMs: number; queueMs: number };
  slots: SlotEvidence;
  budgets: BudgetMeasurement[];
  prefixShares: PrefixShare[];
  promptEvaluation: PromptEvaluation;
};

function own(turn: HasAccounting): AccountingWrites {
  return turn.accounting as AccountingWrites;
}

/** The turn's exact token counter, made on first use; a re-selection keeps it (its cached counts carry over). */
export function useTokenCounter(turn: HasAccounting, make: () => TokenCounter): TokenCounter {
  const slice = own(turn);
  return slice.tokens ?? (slice.tokens = make());
}

/** The moment the fast Answer went out (`answer_done`). */
export function noteAnswerDone(turn: HasAccounting): void {
  own(turn).answerDoneAt = performance.now();
}

/**
 * Applies the guard to a request body (mutating `max_tokens`) and records the measurement. A prompt
 * already counted (the Answer, measured by selection) uses that count; otherwise a sound upper bound
 * that fits the window (decisions 24, 27) spares the pre-call count; otherwise it is counted exactly
 * and a call that cannot fit is refused before it reaches the router.
 */
export async function guardCall(turn: TurnState, deps: Pick<EngineDeps, 'fitBounds'>, stage: string, body: ChatRequest): Promise<BudgetMeasurement | null> {
  const budget = turn.profile.context;
  const tokens = turn.accounting.tokens;
  if (!budget.exactTokenizer || !tokens) return null;
  const reserved = budget.reservedOutputTokens;
  const requested = typeof body.max_tokens === 'number' && body.max_tokens > 0 ? body.max_tokens : reserved;
  body.max_tokens = Math.min(requested, reserved);
  const measurement: BudgetMeasurement = { stage, model: body.model, input_tokens: null, output_tokens: body.max_tokens, context_window: budget.window };
  const known = tokens.knownChatCount(body);
  const proof = known ? null : await proveFit(turn, deps, body);
  if (proof !== null && proof.bound + body.max_tokens <= budget.window) {
    measurement.method = 'byte_bound';
    measurement.input_bound = proof.bound;
    measurement.input_bound_basis = proof.basis;
    own(turn).budgets.push(measurement);
    return measurement;
  }
  const input = await (known ?? tokens.countChat(body));
  measurement.input_tokens = input;
  own(turn).budgets.push(measurement);
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
  const answerPrompt = turn.accounting.answerPrompt;
  if (answerPrompt === null) return;
  const share = (shared: number, method: 'router_cache' | 'exact_count') => {
    const sharedTokens = Math.min(shared, inputTokens);
    own(turn).prefixShares.push({ stage, prompt_tokens: inputTokens, shared_prefix_tokens: sharedTokens, ratio: inputTokens > 0 ? sharedTokens / inputTokens : 0, method });
  };
  if (typeof cachedTokens === 'number' && cachedTokens > 0) return share(cachedTokens, 'router_cache');
  const tokens = turn.accounting.tokens;
  if (!tokens) return;
  try {
    share(await tokens.count(body.model, commonPrefix(answerPrompt, promptText(body))), 'exact_count');
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
  const slice = own(turn);
  const isAnswer = stage === 'answer' && slice.answerPrompt === null;
  if (isAnswer) slice.answerPrompt = promptText(body);
  const opts: CallOptions = { signal: turn.signal, slots: slice.slots, turnKey: turn };
  const span = turn.telemetry.modelCall(stage, body);
  let result: ChatResult;
  try {
    result = await deps.router.chat(body, opts);
  } catch (err) {
    span.fail(errorTypeOf(err, turn.signal.aborted));
    throw err;
  }
  span.end(result);
  // A call proven to fit without a count: the router's own figure is the exact one (decision 24). A
  // router that reports no usage leaves it missing, with the reason, never a guessed zero.
  if (measurement?.method === 'byte_bound') {
    if (result.usage.prompt_tokens > 0) measurement.input_tokens = result.usage.prompt_tokens;
    else measurement.input_tokens_unavailable = 'router_reported_no_prompt_tokens';
  }
  // The Answer's exact figure is what later stages' bounds stand on (decision 27).
  if (stage === 'answer' && measurement?.input_tokens != null) noteAnswerCount(turn, body, measurement.input_tokens);
  addUsage(slice.usage, result.usage);
  notePromptEvaluation(slice.promptEvaluation, stage, result);
  deps.metrics?.observeModelCall({ queueWaitSeconds: result.queueWaitMs / 1000, promptTokens: result.usage.prompt_tokens, completionTokens: result.usage.completion_tokens });
  slice.timing.modelMs += result.routerMs;
  slice.timing.queueMs += result.queueWaitMs;
  if (!isAnswer && measurement?.input_tokens != null) await recordPrefixShare(turn, stage, body, measurement.input_tokens, result.usage.cached_tokens);
  return result;
}
