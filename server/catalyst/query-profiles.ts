/**
 * The `catalyst_query` profiles as Catalyst sees them: which roles a profile has, the model, prompt and
 * knobs of each (from the compiled catalogue only; a caller can never override them), and the
 * `profileEvidence` of discovery (hub-contract §10.2) with its RFC 8785 `profileDigest`.
 */
import { HubError } from '../errors';
import type { Catalog, Profile } from '../profiles';
import { canonicalDigest, sha256Hex } from './digests';
import { QUERY_ROLE_NAMES, type QueryRole, type ResolvedRole, type RoleConfig } from './types';

/** Evidence names the roles as Catalyst's invocation records do. */
const EVIDENCE_ROLE: Record<QueryRole, 'writer' | 'reviewer'> = { query_generate: 'writer', query_review: 'reviewer' };
const PROMPT_VERSION = '1';

export function isQueryProfile(p: Profile): boolean {
  return p.workflow === 'catalyst_query';
}

export function queryProfiles(catalog: Catalog): Profile[] {
  return catalog.profiles.filter(isQueryProfile);
}

/** The roles a profile configures, writer first. */
export function profileRoles(p: Profile): QueryRole[] {
  return QUERY_ROLE_NAMES.filter((r) => typeof p.models[r] === 'string');
}

/** The compiler guarantees numeric knobs for query roles (rule 11); this reads them in Catalyst's names. */
export function roleConfig(p: Profile, role: QueryRole): RoleConfig {
  const k = p.knobs[role] ?? {};
  return { temperature: k.temperature ?? 0, dryMultiplier: k.dry ?? 0, maxTokens: k.max_tokens ?? 0 };
}

/** 404 unless `profileId` is a query profile that configures `role`. */
export function lookupRole(catalog: Catalog, profileId: string, role: string): { profile: Profile; role: QueryRole } {
  const profile = catalog.get(profileId);
  if (!profile || !isQueryProfile(profile)) {
    throw new HubError('profile_not_found', `'${profileId}' is not a configured Catalyst query profile.`, {
      extra: { profile_id: profileId, query_profiles: queryProfiles(catalog).map((p) => p.id) },
    });
  }
  const known = profileRoles(profile);
  if (!(known as string[]).includes(role)) {
    throw new HubError('role_not_found', `Profile '${profileId}' has no role '${role}'.`, { extra: { profile_id: profileId, role, roles: known } });
  }
  return { profile, role: role as QueryRole };
}

/** The role with its system prompt read now (prompt edits apply without a restart). */
export function resolveRole(catalog: Catalog, profile: Profile, role: QueryRole): ResolvedRole {
  const promptStem = profile.prompts[role] as string;
  return {
    profileId: profile.id,
    role,
    model: profile.models[role] as string,
    promptStem,
    systemPrompt: catalog.readPrompt(promptStem),
    config: roleConfig(profile, role),
  };
}

// ---- discovery evidence ----------------------------------------------------------------------------

export function roleKnobs(p: Profile): Record<string, { temperature: number; dry: number; maxTokens: number }> {
  const out: Record<string, { temperature: number; dry: number; maxTokens: number }> = {};
  for (const role of profileRoles(p)) {
    const c = roleConfig(p, role);
    out[role] = { temperature: c.temperature, dry: c.dryMultiplier, maxTokens: c.maxTokens };
  }
  return out;
}

export function roleModels(p: Profile): Record<string, string> {
  return Object.fromEntries(profileRoles(p).map((r) => [r, p.models[r] as string]));
}

export function queryPolicies(p: Profile): Record<string, unknown> {
  const pol = p.policies;
  return {
    generation_attempts: pol.generationAttempts ?? 2,
    collaborative_review: pol.collaborativeReview ?? false,
    model_classes: { ...(pol.modelClasses ?? {}) },
    ...(pol.allowedOperation ? { allowed_operation: pol.allowedOperation } : {}),
  };
}

function roleEvidence(p: Profile, role: QueryRole, providerId: string, readPrompt: (stem: string) => string) {
  const stem = p.prompts[role] as string;
  const text = readPrompt(stem);
  const c = roleConfig(p, role);
  return {
    role: EVIDENCE_ROLE[role],
    providerId,
    modelClass: p.policies.modelClasses?.[role] ?? null,
    modelId: p.models[role] as string,
    config: { temperature: c.temperature, dry: c.dryMultiplier, maxTokens: c.maxTokens },
    systemPrompt: { promptId: stem, version: PROMPT_VERSION, promptRef: `med-agent-hub:prompts/${stem}.txt`, promptDigest: sha256Hex(text), text },
  };
}

type RoleEvidence = ReturnType<typeof roleEvidence>;

/** `profileDigest` covers the evidence without the prompt texts (their digests stay in). */
export function profileDigest(evidence: { profileId: string; profileName: string; writer: RoleEvidence; reviewer: RoleEvidence | null }): string {
  const strip = (r: RoleEvidence | null) => {
    if (!r) return null;
    const { text: _text, ...prompt } = r.systemPrompt;
    return { ...r, systemPrompt: prompt };
  };
  return canonicalDigest({ ...evidence, writer: strip(evidence.writer), reviewer: strip(evidence.reviewer) });
}

/** hub-contract §10.2; a writer-only profile has `reviewer: null`. */
export function profileEvidence(p: Profile, providerId: string, readPrompt: (stem: string) => string) {
  const base = {
    profileId: p.id,
    profileName: p.label,
    writer: roleEvidence(p, 'query_generate', providerId, readPrompt),
    reviewer: p.models.query_review ? roleEvidence(p, 'query_review', providerId, readPrompt) : null,
  };
  return { ...base, profileDigest: profileDigest(base) };
}
