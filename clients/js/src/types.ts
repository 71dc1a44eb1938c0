/** Request and response types of the chat, models and raw-generate routes (hub-contract §2–3, clients.md §2). */
import type { BlockingProductEnvelope, LegEnvelope } from './envelope.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** `POST /v1/chat/completions` without `stream` (the client sets it). */
export interface ChatRequest {
  /** A product profile (`single-12b-bare`), a plain profile, or a leg (`answer:gemma-4-12b@synthesis-chartsearchai~off~temp0`). */
  model: string;
  messages: ChatMessage[];
  /** An OpenMRS patient uuid: the hub reads the chart from QueryStore. */
  patient?: string;
  context?: {
    require_product_profile?: boolean;
    session?: string;
    request_id?: string;
    account_context?: Record<string, unknown>;
    source?: string;
    sources?: string | string[];
    temporal?: boolean;
    [key: string]: unknown;
  };
  response_format?: Record<string, unknown>;
  temperature?: number;
  max_tokens?: number;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{ index: number; message: { role: 'assistant'; content: string }; finish_reason: string | null }>;
  usage: Usage;
}

/** A blocking product answer: the final staged envelope plus `citations`. */
export interface ProductAnswer {
  type: 'product';
  envelope: BlockingProductEnvelope;
  completion: ChatCompletion;
}

/** A leg's or plain profile's answer: its result envelope. */
export interface LegAnswer {
  type: 'leg';
  envelope: LegEnvelope;
  completion: ChatCompletion;
}

export type AskResult = ProductAnswer | LegAnswer;

/** One `/v1/models` entry (profiles; legs are not advertised). */
export interface ModelInfo {
  id: string;
  object: 'model';
  label?: string;
  staged?: boolean;
  validation?: string;
  temporal_enforcement?: 'off' | 'warn' | 'enforce';
  available?: boolean;
  default?: boolean;
  selection_priority?: number;
  topology?: string;
  visibility?: 'product' | 'internal' | 'experimental';
  stages?: string[];
  required_models?: string[];
  context_window?: number | null;
  exact_tokenizer?: boolean;
  unavailable_reasons?: string[];
  created?: number;
  owned_by?: string;
  [key: string]: unknown;
}

export interface ModelList {
  object: 'list';
  data: ModelInfo[];
  backend?: Record<string, unknown>;
}

/** `POST /v1/hub/generate`: `model` must be an id the backend advertises. */
export interface GenerateRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  dry_multiplier?: number;
  response_format?: Record<string, unknown>;
  max_tokens?: number;
}

/** A `chat.completion` that also carries the top-level `content` an earlier Catalyst read. */
export interface GenerateCompletion extends ChatCompletion {
  content: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}
