/** Types of one turn through the engine: the validated request, the turn state stages share, and events. */
import type { Config } from '../config';
import type { ChatMessageLike, SourceRegistry } from '../context';
import type { RouterClient, LocalTokenizer, FitBounds } from '../llm';
import type { Catalog, GateMode, Profile, StageName } from '../profiles';
import type { AccountingSlice } from './slices/accounting';
import type { FitTurn } from './slices/fit';
import type { HubMetrics } from '../metrics';
import type { EngineEvent } from '../answer';
import type { TemporalGateResult as GateResult } from '../checks/temporal';
import type { DrugSafety } from '../checks/drug-safety';
import type { DrugSafetyTurn } from './slices/drug-safety';
import type { GatherTurn } from './gather/types';
import type { AnswerSlice } from './slices/answer';
import type { ContextSlice } from './slices/context';
import type { OutcomeSlice } from './slices/outcome';
import type { ReviewSlice } from './slices/review';
import type { ValidationSlice } from './slices/validation';
import type { TraceStep } from './steps';
import type { TurnSpan } from '../telemetry';

/** `context` extension of the chat request (§2.1). */
export interface RequestContext {
  sources?: unknown;
  source?: unknown;
  temporal?: unknown;
  temporal_gate?: unknown;
  require_product_profile?: unknown;
  session?: unknown;
  request_id?: unknown;
  message_id?: unknown;
  [key: string]: unknown;
}

/** The validated body of `POST /v1/chat/completions`. */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessageLike[];
  response_format?: Record<string, unknown> | null;
  temperature?: number | null;
  max_tokens?: number | null;
  stream?: boolean;
  context?: RequestContext | null;
  patient?: string | null;
  [key: string]: unknown;
}

export interface TemporalPolicy {
  enabled: boolean;
  mode: GateMode;
}

export type TemporalGateResult = GateResult;

/** What the turn is given, fixed once it starts: read-only for every stage. */
export interface TurnInput {
  readonly requestId: string;
  readonly profile: Profile;
  readonly request: ChatCompletionRequest;
  readonly signal: AbortSignal;
  readonly temporal: TemporalPolicy;
  /** performance.now() when the turn started (metrics). */
  readonly startedAt: number;
  /** The turn's OpenTelemetry span (a shared no-op when telemetry is off): stages and model calls open children on it. */
  readonly telemetry: TurnSpan;
}

/**
 * One turn: its input plus slices, each written by exactly one owner module and read by the others
 * (test/unit/turn-slices.test.ts proves the single writer). Trace steps are appended, never read back.
 */
export interface TurnState extends TurnInput {
  /** Question, history, ledger, temporal facts, context view: written by slices/context.ts. */
  readonly context: ContextSlice;
  /** Draft, references, confidence, In-Depth, last emitted envelope: written by slices/answer.ts. */
  readonly answer: AnswerSlice;
  /** Issues, temporal gate, answerValidation: written by slices/validation.ts. */
  readonly validation: ValidationSlice;
  /** Answer review, In-Depth review, agreement: written by slices/review.ts. */
  readonly review: ReviewSlice;
  /** Usage, timing, slots, budgets, prompt evaluation, prefix shares, token counter: written by budget.ts. */
  readonly accounting: AccountingSlice;
  /** Stage timings, a settled pipeline failure, a shutdown: written by slices/outcome.ts. */
  readonly outcome: OutcomeSlice;
  /** Drug safety's part of the turn, written only by stages/drug-safety.ts (§9). */
  readonly drugSafety: DrugSafetyTurn;
  /** Team gather's part of the turn (expert notes, gathered text), written only by engine/gather/loop.ts. */
  readonly gather: GatherTurn;
  /** Fit proofs' part of the turn (prompt layouts, the Answer's exact count), written only by engine/fit.ts. */
  readonly fit: FitTurn;
  /** The trace's steps: appended through `recordStep` (steps.ts), read only by the trace record. */
  readonly steps: readonly TraceStep[];
}

export interface EngineDeps {
  config: Config;
  router: RouterClient;
  catalog: Catalog;
  sources: SourceRegistry;
  /** Optional local exact tokenizer (a configured tokenizer.json). */
  localTokenizer?: LocalTokenizer | null;
  /** Prometheus metrics; absent in unit tests and benchmarks that do not need them. */
  metrics?: HubMetrics | null;
  /** Proves a prompt fits without a pre-call count (decision 24); absent: every guarded call is counted. */
  fitBounds?: FitBounds | null;
  /** Deterministic drug safety (loaded once at start-up); absent: every result says it is not configured. */
  drugSafety?: DrugSafety | null;
}

/** A stage is a small object: a name and `run`, which reads/writes the turn and may yield events. */
export interface Stage {
  name: StageName;
  run(turn: TurnState, deps: EngineDeps): AsyncIterable<EngineEvent> | Promise<void>;
}
