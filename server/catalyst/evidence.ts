/**
 * Request evidence (clients.md §5), built from plain data: the exact request the hub sends, its RFC 8785
 * digest, the rendered prompt and the token fit. Pure, so every rule Catalyst checks is unit-tested.
 */
import type { ChatMessage } from '../llm';
import { canonicalDigest, sha256Hex } from './digests';
import {
  REQUEST_EVIDENCE_CONTRACT, UNAVAILABLE, type EvidenceRequest, type PromptEvidence, type PromptMeasurement,
  type RequestEvidence, type ResolvedRole, type TokenAccounting, type TokenEvidence,
} from './types';

/** The role's system prompt first, then the caller's messages unchanged. */
export function roleMessages(role: ResolvedRole, callerMessages: readonly ChatMessage[]): ChatMessage[] {
  return [{ role: 'system', content: role.systemPrompt }, ...callerMessages];
}

export function buildEvidenceRequest(role: ResolvedRole, callerMessages: readonly ChatMessage[], responseFormat: Record<string, unknown> | null): EvidenceRequest {
  return {
    profileId: role.profileId,
    role: role.role,
    model: role.model,
    messages: roleMessages(role, callerMessages),
    responseFormat,
    config: { ...role.config },
  };
}

export function promptEvidence(m: Pick<PromptMeasurement, 'renderedPrompt' | 'renderedPromptReason'>): PromptEvidence {
  if (m.renderedPrompt !== null) return { renderedPrompt: m.renderedPrompt, renderedPromptDigest: sha256Hex(m.renderedPrompt) };
  return { renderedPrompt: null, renderedPromptDigest: null, unavailableReason: m.renderedPromptReason ?? UNAVAILABLE.renderer };
}

/** requiredTokens = promptTokens + outputReserve; fits = requiredTokens <= contextWindow; null whenever a figure is. */
export function tokenEvidence(model: string, outputReserve: number, m: Omit<PromptMeasurement, 'renderedPrompt' | 'renderedPromptReason'>): TokenEvidence {
  const requiredTokens = m.promptTokens === null ? null : m.promptTokens + outputReserve;
  const fits = requiredTokens === null || m.contextWindow === null ? null : requiredTokens <= m.contextWindow;
  const tokens: TokenEvidence = { tokenizer: model, contextWindow: m.contextWindow, outputReserve, promptTokens: m.promptTokens, requiredTokens, fits };
  if (m.contextWindow === null) tokens.contextWindowUnavailableReason = m.contextWindowReason ?? UNAVAILABLE.contextWindow;
  if (m.promptTokens === null) tokens.promptTokensUnavailableReason = m.promptTokensReason ?? UNAVAILABLE.tokenizer;
  return tokens;
}

export function buildRequestEvidence(request: EvidenceRequest, m: PromptMeasurement): RequestEvidence {
  return {
    contractVersion: REQUEST_EVIDENCE_CONTRACT,
    request,
    requestDigest: canonicalDigest(request),
    prompt: promptEvidence(m),
    tokens: tokenEvidence(request.model, request.config.maxTokens, m),
  };
}

export function tokenAccounting(tokens: TokenEvidence): TokenAccounting | null {
  if (tokens.contextWindow === null || tokens.promptTokens === null) return null;
  return { tokenizer: tokens.tokenizer, contextWindow: tokens.contextWindow, outputReserve: tokens.outputReserve, promptTokens: tokens.promptTokens };
}

/** Only a known overflow blocks a call; an unknown fit lets it through. */
export function knownOverflow(tokens: TokenEvidence): boolean {
  return tokens.fits === false;
}
