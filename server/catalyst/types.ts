/** Wire types of the Catalyst role endpoints (clients.md §5, hub-contract §10), declared once. */
import type { ChatMessage } from '../llm';

export const REQUEST_EVIDENCE_CONTRACT = 'med-agent-hub.catalyst-role-request-evidence.v1';

/** The two roles a `catalyst_query` profile may configure; `query_review` is optional. */
export const QUERY_ROLE_NAMES = ['query_generate', 'query_review'] as const;
export type QueryRole = (typeof QUERY_ROLE_NAMES)[number];

/** Stable reasons for a missing figure (never an estimate in its place; decision 7). */
export const UNAVAILABLE = {
  renderer: 'renderer_unavailable',
  tokenizer: 'tokenizer_unavailable',
  contextWindow: 'context_window_unknown',
} as const;

/** The role's fixed sampling, named as Catalyst compares it with `role_knobs`. */
export interface RoleConfig {
  temperature: number;
  dryMultiplier: number;
  maxTokens: number;
}

/** Everything the hub decides for one role call: model, system prompt and knobs, from the profile only. */
export interface ResolvedRole {
  profileId: string;
  role: QueryRole;
  model: string;
  promptStem: string;
  systemPrompt: string;
  config: RoleConfig;
}

/** `request_evidence.request`: exactly what the hub sends the model (keys fixed by Catalyst's validator). */
export interface EvidenceRequest {
  profileId: string;
  role: QueryRole;
  model: string;
  messages: ChatMessage[];
  responseFormat: Record<string, unknown> | null;
  config: RoleConfig;
}

export type PromptEvidence =
  | { renderedPrompt: string; renderedPromptDigest: string }
  | { renderedPrompt: null; renderedPromptDigest: null; unavailableReason: string };

export interface TokenEvidence {
  tokenizer: string;
  contextWindow: number | null;
  outputReserve: number;
  promptTokens: number | null;
  requiredTokens: number | null;
  fits: boolean | null;
  contextWindowUnavailableReason?: string;
  promptTokensUnavailableReason?: string;
}

export interface RequestEvidence {
  contractVersion: typeof REQUEST_EVIDENCE_CONTRACT;
  request: EvidenceRequest;
  requestDigest: string;
  prompt: PromptEvidence;
  tokens: TokenEvidence;
}

/** The legacy successful shape Catalyst still reads; null unless every figure is known. */
export interface TokenAccounting {
  tokenizer: string;
  contextWindow: number;
  outputReserve: number;
  promptTokens: number;
}

/** What the router told the hub about a prompt: each figure exact, or null with its reason. */
export interface PromptMeasurement {
  renderedPrompt: string | null;
  renderedPromptReason?: string;
  promptTokens: number | null;
  promptTokensReason?: string;
  contextWindow: number | null;
  contextWindowReason?: string;
}
