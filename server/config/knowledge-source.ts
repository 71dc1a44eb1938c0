/**
 * Settings of the hub's `knowledge-base` context source (knowledge-layer.md §6.4): whether it runs, which
 * transport it uses (the hub's own knowledge engine in process, or a Locus-compatible `/v2/context` over
 * HTTP), and how much of the ledger it may take. Each variable is read through its row of the one table
 * (variables.ts); the hub's `Config.knowledgeSource` takes them from here.
 */
import type { Env, ReadContext } from './read';
import { readVariable, type VariableName, type VariableValue } from './variables';

export interface KnowledgeSourceSettings {
  /** `auto`: HTTP when `locusBaseUrl` is set, else the hub's knowledge engine in process; `off`: every fetch is empty. */
  mode: 'auto' | 'off';
  /** Base URL of a Locus-compatible service (without `/v2/context`); null = in process. */
  locusBaseUrl: string | null;
  /** Bearer key sent to that service (never logged, never traced). */
  locusApiKey: string;
  /** Longest a `/v2/context` call may take before the source degrades to an empty ledger. */
  timeoutMs: number;
  /** Mandatory (safety) MKU records kept mandatory per turn; the rest become ordinary records. */
  maxMandatory: number;
  /** Ordinary (non-safety) MKU records kept per turn, in the pipeline's rank order. */
  k: number;
}

/** Reads and validates the source's settings; throws ConfigError naming the first bad variable. */
export function knowledgeSourceSettings(env: Env): KnowledgeSourceSettings {
  const ctx: ReadContext = { env, root: process.cwd() };
  const read = <K extends VariableName>(name: K): VariableValue<K> => readVariable(ctx, name);
  const mode = read('KNOWLEDGE_SOURCE');
  const locusBaseUrl = read('LOCUS_BASE_URL');
  const seconds = read('LOCUS_TIMEOUT_SECONDS');
  return {
    mode,
    locusBaseUrl,
    locusApiKey: read('LOCUS_API_KEY'),
    timeoutMs: Math.round(seconds * 1000),
    maxMandatory: read('KNOWLEDGE_MAX_MANDATORY'),
    k: read('KNOWLEDGE_SOURCE_K'),
  };
}

/** The source needs the hub's own knowledge engine (store + pipeline) in process. */
export function needsEmbeddedEngine(s: KnowledgeSourceSettings): boolean {
  return s.mode === 'auto' && s.locusBaseUrl === null;
}
