/**
 * What the hub tells its spans: ids, names, settings and figures, never text. Nothing here can carry a
 * prompt, a chart record, a question, an answer or an error message (which may echo any of them): the
 * shapes below hold no string that comes from a message or from the model's output.
 */

/** How a turn, a stage or a model call ended. */
export type SpanOutcome = 'completed' | 'failed' | 'cancelled';

/** The W3C trace context headers of the client's request, when it sent them (the turn continues its trace). */
export interface IncomingTraceContext {
  traceparent?: string | string[];
  tracestate?: string | string[];
}

export interface TurnSpanStart extends IncomingTraceContext {
  /** A product turn (staged envelope) or a low-level leg. */
  kind: 'product' | 'leg';
  /** The agent the turn runs (`gen_ai.agent.name`): the product profile id, or the leg's kind (`answer`, `answer-review`, `indepth-only`). */
  agentName: string;
  /** The model id the client asked for (a profile id, an alias or a leg id). */
  requestedModel: string;
  /** The profile the request resolved to. */
  profileId: string;
  /** The writer model of the turn, when the plan has one. */
  writerModel: string | null;
  requestId: string;
  stream: boolean;
}

export interface TurnSpanEnd {
  outcome: SpanOutcome;
  /** The error catalogue code (`server/errors.ts`) a failed turn ended with; `cancelled` for a cancelled one. */
  errorType: string | null;
  /** A failure a product turn settled (a fallback or restored Answer): its error code (or error name); the outcome stays `completed`. */
  pipelineError: string | null;
  /** The turn's summed router usage. */
  usage: { readonly prompt_tokens: number; readonly completion_tokens: number };
}

/** The parts of a model request a span reads (a router `ChatRequest` satisfies it): settings only, never messages. */
export interface ModelRequestFacts {
  readonly model: string;
  readonly max_tokens?: number;
  readonly temperature?: number;
  readonly top_p?: unknown;
  readonly top_k?: unknown;
}

/** The parts of a model result a span reads (a router `ChatResult` satisfies it): figures only, never content. */
export interface ModelResultFacts {
  readonly model: string | null;
  readonly finishReason: string | null;
  readonly usage: { readonly prompt_tokens: number; readonly completion_tokens: number; readonly cached_tokens?: number };
  readonly queueWaitMs: number;
}

/** One model call (`chat {model}`): ended once, by `end` (a result) or `fail` (an error code). */
export interface ModelCallSpan {
  /** Without a result: a call whose figures the hub never reads (a raw stream passed through as it came). */
  end(result?: ModelResultFacts): void;
  fail(errorType: string): void;
}

export interface StageSpan {
  end(outcome: SpanOutcome, errorType?: string | null): void;
}

/** One turn's root span and the parent of its stage and model-call spans. */
export interface TurnSpan {
  /** A stage of the plan starts; model calls made until it ends are its children. */
  stage(name: string, occurrence: number): StageSpan;
  /** A model call of the stage running now (`stage` is the call's own label: answer, review, grounding …). */
  modelCall(stage: string, request: ModelRequestFacts): ModelCallSpan;
  /** The turn really ended (after In-Depth, a cancel, a failure or a shutdown); idempotent. */
  end(end: TurnSpanEnd): void;
}

/** A model call that is a request of its own (a Catalyst role call, raw generate): its span is the root. */
export interface CallSpanStart extends IncomingTraceContext {
  route: 'catalyst_role' | 'raw_generate';
  requestId: string;
  stream: boolean;
  /** Catalyst only: the query profile and role. */
  profileId?: string;
  role?: string;
}

export interface Telemetry {
  /** false: every call below is a no-op and no OpenTelemetry code is loaded. */
  readonly enabled: boolean;
  startTurn(start: TurnSpanStart): TurnSpan;
  startCall(start: CallSpanStart, request: ModelRequestFacts): ModelCallSpan;
  /** Exports every span ended so far; resolves when the collector took them or refused (never rejects). */
  flush(): Promise<void>;
  /** Exports what is still queued (bounded by the export timeout) and stops; spans started after it are dropped. */
  shutdown(): Promise<void>;
}
