/**
 * Catalyst role calls (clients.md §5, README "Catalyst roles and raw generate"), with the evidence the hub
 * returns checked here as Catalyst checks it: `requestDigest` is the SHA-256 of the RFC 8785 canonical
 * JSON of `request`, `renderedPromptDigest` the SHA-256 of the rendered prompt's UTF-8, and discovery's
 * `profileDigest` / `promptDigest` likewise. A digest that does not match throws EvidenceDigestError.
 */
import { canonicalize } from 'json-canonicalize';
import { APIError, EvidenceDigestError, ProtocolError } from './errors.js';

export type CatalystRole = 'query_generate' | 'query_review';

/** The caller's part of a role call: user/assistant messages and an optional response format. */
export interface RoleRequest {
  messages: Array<{ role: 'user' | 'assistant'; content: string }>;
  response_format?: Record<string, unknown>;
}

export interface RequestEvidence {
  contractVersion: 'med-agent-hub.catalyst-role-request-evidence.v1';
  request: {
    profileId: string;
    role: CatalystRole;
    model: string;
    messages: Array<{ role: string; content: string }>;
    responseFormat: Record<string, unknown> | null;
    config: { temperature: number; dryMultiplier: number; maxTokens: number };
  };
  requestDigest: string;
  prompt: { renderedPrompt: string; renderedPromptDigest: string } | { renderedPrompt: null; renderedPromptDigest: null; unavailableReason: string };
  tokens: {
    tokenizer: string;
    contextWindow: number | null;
    outputReserve: number;
    promptTokens: number | null;
    requiredTokens: number | null;
    fits: boolean | null;
    contextWindowUnavailableReason?: string;
    promptTokensUnavailableReason?: string;
  };
}

export interface RoleResult {
  content: string;
  model: string;
  profile_id: string;
  role: CatalystRole;
  token_accounting: { tokenizer: string; contextWindow: number; outputReserve: number; promptTokens: number } | null;
  request_evidence: RequestEvidence;
}

export interface RoleEvidence {
  role: string;
  providerId: string;
  modelClass: string | null;
  modelId: string;
  config: { temperature: number; dry: number; maxTokens: number };
  systemPrompt: { promptId: string; version: string; promptRef: string; promptDigest: string; text: string };
}

export interface QueryProfile {
  id: string;
  label: string;
  available: boolean;
  required_models: string[];
  role_models: Record<string, string>;
  role_knobs: Record<string, { temperature: number; dry: number; maxTokens: number }>;
  policies: Record<string, unknown>;
  /** Absent when the profile's prompt cannot be read (then `unavailable_reasons` says so). */
  profileEvidence?: { profileId: string; profileName: string; writer: RoleEvidence; reviewer: RoleEvidence | null; profileDigest: string };
  unavailable_reasons: string[];
}

export interface QueryProfilesDocument {
  object: 'list';
  data: QueryProfile[];
  backend: Record<string, unknown>;
}

/** Lower-case hex SHA-256 of a string's UTF-8 bytes (Web Crypto: Node ≥ 20 and browsers). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** SHA-256 of the RFC 8785 canonical JSON of `value`. */
export async function canonicalDigest(value: unknown): Promise<string> {
  return sha256Hex(canonicalize(value));
}

async function expectDigest(field: string, computed: Promise<string>, received: unknown): Promise<void> {
  const expected = await computed;
  if (received !== expected) throw new EvidenceDigestError(field, expected, received);
}

/** Checks a role call's `request_evidence` digests; throws EvidenceDigestError on the first mismatch. */
export async function verifyRequestEvidence(evidence: RequestEvidence): Promise<void> {
  if (!evidence || typeof evidence !== 'object' || typeof evidence.request !== 'object') throw new ProtocolError('request_evidence is missing or malformed');
  await expectDigest('request_evidence.requestDigest', canonicalDigest(evidence.request), evidence.requestDigest);
  if (evidence.prompt.renderedPrompt !== null) {
    await expectDigest('request_evidence.prompt.renderedPromptDigest', sha256Hex(evidence.prompt.renderedPrompt), evidence.prompt.renderedPromptDigest);
  }
}

/** Checks discovery's `profileDigest` (over the evidence without prompt texts) and each prompt's digest. */
export async function verifyProfileEvidence(profile: QueryProfile): Promise<void> {
  const evidence = profile.profileEvidence;
  if (!evidence) return;
  const { profileDigest, ...base } = evidence;
  const roles = { writer: base.writer, reviewer: base.reviewer };
  for (const [name, role] of Object.entries(roles)) {
    if (role) await expectDigest(`${profile.id}.profileEvidence.${name}.systemPrompt.promptDigest`, sha256Hex(role.systemPrompt.text), role.systemPrompt.promptDigest);
  }
  const withoutText = (role: RoleEvidence | null) => {
    if (!role) return null;
    const { text: _text, ...prompt } = role.systemPrompt;
    return { ...role, systemPrompt: prompt };
  };
  await expectDigest(`${profile.id}.profileEvidence.profileDigest`, canonicalDigest({ ...base, writer: withoutText(base.writer), reviewer: withoutText(base.reviewer) }), profileDigest);
}

/** An error response's `detail.request_evidence` is complete and valid or absent (decision 23): checked too. */
export async function verifyErrorEvidence(err: unknown): Promise<void> {
  if (!(err instanceof APIError)) return;
  const evidence = (err.detail as { request_evidence?: RequestEvidence } | null)?.request_evidence;
  if (evidence) await verifyRequestEvidence(evidence);
}
