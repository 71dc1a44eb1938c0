/**
 * Server defaults of the `/v2/context` knobs (knowledge-layer.md §6.3; Locus publishes none, these are
 * the product's) and of `/v2/retrieve` (the promoted run #50 configuration). `null` means "server default".
 * The resolved values are what `trace.config` reports.
 */
import { HubError } from '../../errors';
import type { ContextOpts, PipelinePolicy, RetrieveRequest } from './types';

export interface ContextConfig {
  mode: 'full' | 'fallback_only';
  include_unreviewed: boolean;
  concept_sim_topk: number;
  mku_sim_topk: number;
  fallback_chunk_topk: number;
  intersection_multihop_depth: number;
  judge_sufficiency_cutoff: number;
  judge_enabled: boolean;
  agent_enabled: boolean;
  w_cosine: number;
  w_overlap: number;
  w_intersection: number;
}

export const CONTEXT_DEFAULTS: ContextConfig = Object.freeze({
  mode: 'full',
  include_unreviewed: false,
  concept_sim_topk: 5,
  mku_sim_topk: 12,
  fallback_chunk_topk: 10,
  intersection_multihop_depth: 1,
  judge_sufficiency_cutoff: 0.5,
  judge_enabled: false,
  agent_enabled: false,
  w_cosine: 1.0,
  w_overlap: 0.5,
  w_intersection: 0.5,
});

/** CROSS_REF expansion is capped at 3 hops everywhere (Locus). */
export const CROSS_REF_MAX_HOPS = 3;

function pick<K extends keyof ContextConfig>(opts: ContextOpts, key: K): ContextConfig[K] {
  const v = (opts as Record<string, unknown>)[key];
  return (v === null || v === undefined ? CONTEXT_DEFAULTS[key] : v) as ContextConfig[K];
}

/** Resolves the knobs; `include_unreviewed` is refused unless the deployment opts in. */
export function resolveContextConfig(opts: ContextOpts | null | undefined, policy: PipelinePolicy): ContextConfig {
  const o = opts ?? {};
  const config = Object.fromEntries((Object.keys(CONTEXT_DEFAULTS) as Array<keyof ContextConfig>).map((k) => [k, pick(o, k)])) as unknown as ContextConfig;
  if (config.include_unreviewed && !policy.allowUnreviewed) {
    throw new HubError('unreviewed_not_allowed', 'opts.include_unreviewed is refused on this deployment (set CTX_ALLOW_UNREVIEWED=true or ENV=test to allow it).', { param: 'opts.include_unreviewed' });
  }
  return config;
}

export interface RetrieveConfig {
  concept_k: number;
  chunk_k: number;
  mku_k: number;
  table_k: number;
  mku_weight: number;
  use_cross_refs: boolean;
  deliberate: boolean;
}

export const RETRIEVE_DEFAULTS: RetrieveConfig = Object.freeze({
  concept_k: 5,
  chunk_k: 10,
  mku_k: 12,
  table_k: 5,
  mku_weight: 0.75,
  use_cross_refs: true,
  deliberate: false,
});

export function resolveRetrieveConfig(req: RetrieveRequest): RetrieveConfig {
  const r = req as unknown as Record<string, unknown>;
  return Object.fromEntries((Object.keys(RETRIEVE_DEFAULTS) as Array<keyof RetrieveConfig>).map((k) => [k, r[k] ?? RETRIEVE_DEFAULTS[k]])) as unknown as RetrieveConfig;
}
