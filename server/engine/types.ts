/** Types of one turn through the engine: the validated request, the turn state stages share, and events. */
import type { Config } from '../config';
import type { EvidenceLedger } from '../context/types';
import type { ChatMessageLike } from '../context/inline-chart';
import type { RouterClient, SlotEvidence, Usage } from '../llm/types';
import type { SharedBlock } from '../llm/shared-block';
import type { Catalog } from '../profiles/catalog';
import type { SourceRegistry } from '../context/registry';
import type { TokenCounter, LocalTokenizer } from '../llm/tokens';
import type { BudgetMeasurement } from './budget';
import type { FitBounds } from '../llm/fit-bound';
import type { FitTurn } from './fit';
import type { HubMetrics } from '../metrics';
import type { Reference } from '../answer/references';
import type { AnswerDraft, ConfidenceLevel } from '../answer/types';
import type { EngineEvent } from '../answer/events';
import type { TemporalFacts, TemporalGateResult as GateResult } from '../checks/temporal/types';
import type { GateMode, Profile, StageName } from '../profiles/types';
import type { DrugSafety } from '../checks/drug-safety';
import type { DrugSafetyTurn } from './stages/drug-safety';
import type { GatherTurn } from './gather/types';

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

export interface TraceStep {
  role: string;
  [key: string]: unknown;
}

/** Mutable state of one turn; stages read and write it. */
export interface PromptEvaluation {
  stages: Array<{ stage: string; prompt_tokens: number; evaluated_tokens: number; new_unique_tokens: number | null }>;
  prompt_tokens: number;
  evaluated_tokens: number;
  /** Tokens of the turn's prompts counted once per shared prefix; null when a call's figure was unknown. */
  unique_tokens: number | null;
}

export interface TurnState {
  requestId: string;
  profile: Profile;
  request: ChatCompletionRequest;
  signal: AbortSignal;
  temporal: TemporalPolicy;
  question: string;
  /** Conversation messages other than the chart message(s), in order (system messages dropped). */
  conversation: ChatMessageLike[];
  ledger: EvidenceLedger | null;
  /** The context block every stage sends first (decision 8). */
  contextMessage: SharedBlock;
  draft: AnswerDraft | null;
  temporalGate: TemporalGateResult | null;
  usage: Usage;
  /** Wall time spent inside router calls and waiting for a router slot (Server-Timing, trace). */
  timing: { modelMs: number; queueMs: number };
  slots: SlotEvidence;
  steps: TraceStep[];
  /** Request-scoped exact counter (exact-budget profiles only). */
  tokens: TokenCounter | null;
  /** Every guarded model call's measurement (§5.7). */
  budgets: BudgetMeasurement[];
  /** The context summary (`context_view.v1`) once the context stage ran. */
  context: Record<string, unknown> | null;
  /** Reference date ("today") resolved once for the request (§4.7). */
  referenceDate: string | null;
  facts: TemporalFacts | null;
  /** The writer's first draft, kept when a check changes the Answer (answerValidation.originalAnswer). */
  originalDraft: AnswerDraft | null;
  /** Issues raised by deterministic checks (contracts, temporal gate). */
  issues: Array<Record<string, unknown>>;
  /** Answer references (§8), resolved against the complete ledger. */
  references: Reference[];
  /** `confidence.answer` / `confidence.in_depth` (§7.8). */
  confidence: { answer: ConfidenceLevel; in_depth?: ConfidenceLevel };
  /** `answerValidation` (§7.4) once resolve_refs ran. */
  answerValidation: Record<string, unknown> | null;
  /** `inDepth` (§3.5) for plans with In-Depth; null otherwise (and then no key at all, decision 19). */
  inDepth: Record<string, unknown> | null;
  /** The writer's In-Depth claims, as drafted (null until drafted, or when withheld). */
  inDepthClaims: string[] | null;
  /** Notes behind the Answer's confidence, in the order checks raised them. */
  notes: string[];
  /** The last envelope handed to the client; a late failure restores it (§3.3). */
  lastEmitted: Record<string, unknown> | null;
  /** The Answer prompt text, the prefix later stages are measured against (decision 8). */
  answerPrompt: string | null;
  /** Per later stage: its prompt tokens and how many of them are the Answer prompt's prefix. */
  prefixShares: Array<{ stage: string; prompt_tokens: number; shared_prefix_tokens: number; ratio: number; method: 'router_cache' | 'exact_count' }>;
  /** Prompt tokens the engine evaluated per model call against the turn's unique prompt tokens (decision 8); stages empty when the backend does not say. */
  promptEvaluation: PromptEvaluation;
  /** performance.now() when the turn started, and when it handed out `answer_done` (metrics). */
  startedAt: number;
  answerDoneAt: number | null;
  /** The label-only model review of the Answer (§7.3 Target), once the review stage ran. */
  review: AnswerReviewState | null;
  /** The second writer's agreement check (§7.9), once the agree stage ran. */
  agreement: Record<string, unknown> | null;
  /** The one In-Depth review (§7.7 Target): which claims the reviewer flagged. */
  inDepthReview: InDepthReviewState | null;
  /** Drug safety's part of the turn, written only by stages/drug-safety.ts (§9). */
  drugSafety: DrugSafetyTurn;
  /** Team gather's part of the turn (expert notes, gathered text), written only by engine/gather. */
  gather: GatherTurn;
  /** Fit proofs' part of the turn (prompt layouts, the Answer's exact count), written only by engine/fit.ts. */
  fit: FitTurn;
}

export interface AnswerReviewState {
  status: 'checked' | 'needs_review' | 'unavailable';
  /** The reviewer's raw `pairs` (folded grounding), when it sent any. */
  foldedPairs: unknown;
  /** The Answer pairs the reviewer was asked to judge (folded grounding), in prompt order. */
  pairs: ReadonlyArray<{ claim: string; location: string; path: string; sourceIndices: number[] }>;
}

export interface InDepthReviewState {
  status: 'clean' | 'flagged' | 'unavailable';
  /** Claim number (1-based) → the reviewer's note. */
  notes: Map<number, string>;
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
