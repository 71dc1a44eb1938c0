/**
 * The accounting slice's types (declared apart from their writer, budget.ts, so the turn's type can name
 * them without importing the engine code that takes a turn).
 */
import type { SlotEvidence, Usage, TokenCounter } from '../../llm';
import type { FitProof } from './fit';
import { zeroUsage } from '../usage';

export interface PromptEvaluation {
  stages: Array<{ stage: string; prompt_tokens: number; evaluated_tokens: number; new_unique_tokens: number | null }>;
  prompt_tokens: number;
  evaluated_tokens: number;
  /** Tokens of the turn's prompts counted once per shared prefix; null when a call's figure was unknown. */
  unique_tokens: number | null;
}

export interface PrefixShare {
  stage: string;
  prompt_tokens: number;
  shared_prefix_tokens: number;
  ratio: number;
  method: 'router_cache' | 'exact_count';
}

/**
 * The turn's accounting slice (`turn.accounting`): what its model calls cost and how they were
 * guarded. Written only by budget.ts (the guarded, accounted model call); the router fills `slots`,
 * which budget.ts hands it with each call.
 */
export interface AccountingSlice {
  readonly usage: Readonly<Usage>;
  /** Wall time spent inside router calls and waiting for a router slot (Server-Timing, trace). */
  readonly timing: Readonly<{ modelMs: number; queueMs: number }>;
  readonly slots: Readonly<SlotEvidence>;
  /** Request-scoped exact counter (exact-budget profiles only). */
  readonly tokens: TokenCounter | null;
  /** Every guarded model call's measurement (§5.7). */
  readonly budgets: readonly Readonly<BudgetMeasurement>[];
  /** The Answer prompt text, the prefix later stages are measured against (decision 8). */
  readonly answerPrompt: string | null;
  /** Per later stage: its prompt tokens and how many of them are the Answer prompt's prefix. */
  readonly prefixShares: readonly PrefixShare[];
  /** Prompt tokens the engine evaluated per model call against the turn's unique prompt tokens (decision 8); stages empty when the backend does not say. */
  readonly promptEvaluation: Readonly<PromptEvaluation>;
  /** performance.now() when the turn handed out `answer_done` (metrics). */
  readonly answerDoneAt: number | null;
}

export function newAccountingSlice(): AccountingSlice {
  return {
    usage: zeroUsage(),
    timing: { modelMs: 0, queueMs: 0 },
    slots: { acquisitions: 0, releases: 0, active: 0 },
    tokens: null,
    budgets: [],
    answerPrompt: null,
    prefixShares: [],
    promptEvaluation: { stages: [], prompt_tokens: 0, evaluated_tokens: 0, unique_tokens: 0 },
    answerDoneAt: null,
  };
}

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
