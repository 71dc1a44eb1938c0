/** Wire types of the router (llama.cpp llama-server, OpenAI-compatible) as the hub uses them. */

export interface ChatMessage {
  role: string;
  content: unknown;
  [key: string]: unknown;
}

/** The body the hub sends to `POST {LLM_BASE_URL}/v1/chat/completions` (never `n`, never unknown ids). */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  max_tokens?: number;
  response_format?: Record<string, unknown> | null;
  repeat_penalty?: number;
  dry_multiplier?: number;
  tools?: unknown[];
  tool_choice?: unknown;
  [key: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens?: number;
}

/** A tool call the model asked for (OpenAI wire shape flattened; `arguments` is the model's raw JSON text). */
export interface ToolCall {
  id: string | null;
  /** '' when the router's entry named no function (a malformed call the caller reports). */
  name: string;
  arguments: string;
}

export interface ChatResult {
  content: string;
  finishReason: string | null;
  /** `message.tool_calls` of a blocking completion, when the model called tools (tool turns only). */
  toolCalls?: ToolCall[];
  usage: Usage;
  /** Model id the router echoed (diagnostics only). */
  model: string | null;
  /** Time spent waiting for a router slot, ms. */
  queueWaitMs: number;
  /** Wall time of the router call itself (after the slot was granted), ms. */
  routerMs: number;
  /**
   * What the engine evaluated of the prompt, when the backend knows (the embedded engine): the tokens it
   * evaluated now, and the tokens no earlier prompt of the same turn (`CallOptions.turnKey`) began with.
   */
  promptEvaluation?: { evaluatedTokens: number; newUniqueTokens: number | null };
}

/** One piece of a streamed completion as the hub sees it. */
export type StreamPiece =
  | { kind: 'delta'; content: string }
  | { kind: 'done'; result: ChatResult };

export interface ModelInventory {
  /** false when the router could not be queried (distinct from an empty catalogue). */
  reachable: boolean;
  /** Router-advertised ids (router mode: every known model, whatever its load status). */
  ids: string[];
  /** Sanitised router entries by id. */
  entries: Record<string, Record<string, unknown>>;
  /** What an operator should know about the backend as a whole (no model file, a malformed manifest). */
  notes?: string[];
  /** Where a model this backend cannot serve would go (the embedded engine: the GGUF file it looks for). */
  missingModel?: (id: string) => MissingModelHint | null;
  /** LLM_BACKENDS: the backends (by name) serving each advertised id. */
  servedBy?: Record<string, string[]>;
  /** LLM_BACKENDS: each backend and whether its inventory could be read this time. */
  backends?: Array<{ name: string; type: 'router' | 'embedded'; url?: string; reachable: boolean }>;
}

/** What to do about one model the backend cannot serve: the same words on `/`, `/v1/models`, a 503 and `event: error`. */
export interface MissingModelHint {
  model: string;
  /** The file the embedded engine looks for (absent: a router, or an id that cannot be a file name). */
  expected_file?: string;
  advice: string;
}

/** Per-request slot evidence (§10.1): proves a cancelled request freed only its own slot. */
export interface SlotEvidence {
  acquisitions: number;
  releases: number;
  active: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Per-request slot bookkeeping; the router client updates it. */
  slots?: SlotEvidence;
  /** Identity of the turn the call belongs to, so a backend can relate the prompts of one answer. */
  turnKey?: object;
}

export interface RouterClient {
  chat(req: ChatRequest, opts?: CallOptions): Promise<ChatResult>;
  /** Streams a completion; breaking out of the iterator aborts the router request and frees the slot. */
  chatStream(req: ChatRequest, opts?: CallOptions): AsyncIterable<StreamPiece>;
  /**
   * The router's own SSE `data:` payloads (JSON chunks, then `[DONE]`) as they arrive, for raw passthrough;
   * `include_usage` is the caller's. Optional: a backend without it is re-framed from `chatStream`.
   */
  chatChunks?(req: ChatRequest, opts?: CallOptions & { includeUsage?: boolean }): AsyncIterable<string>;
  listModels(opts?: { signal?: AbortSignal }): Promise<ModelInventory>;
  /** `POST /tokenize`; returns token count (or pieces when asked). */
  tokenize(body: { model: string; content: string; add_special?: boolean; parse_special?: boolean; with_pieces?: boolean }, opts?: CallOptions): Promise<TokenizeResult>;
  /** `POST /apply-template` → rendered prompt text. */
  applyTemplate(body: { model: string; messages: ChatMessage[]; tools?: unknown; tool_choice?: unknown }, opts?: CallOptions): Promise<string>;
  /** `POST /v1/chat/completions/input_tokens` when the router has it; null when it does not (404, remembered per process). */
  inputTokens(req: ChatRequest, opts?: CallOptions): Promise<number | null>;
  /** false once the router answered 404 for input_tokens (then inputTokens returns null without a request). */
  hasInputTokens(): boolean;
  /**
   * A model call is about to come: open a connection to the backend now, so the call does not wait for
   * one. Optional (an in-process engine has nothing to open); never throws, costs nothing when one is open.
   */
  preconnect?(): void;
  /** Slot semaphore state, for metrics and tests. */
  slotState(): { inFlight: number; queued: number; capacity: number; maxQueue: number };
  close(): Promise<void>;
}

export interface TokenizeResult {
  count: number;
  tokens?: number[];
  /** Present with `with_pieces`: each token's piece as UTF-8 bytes. */
  pieces?: Uint8Array[];
}
