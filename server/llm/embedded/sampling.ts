/**
 * The sampling knobs of a chat body (llama-server's names and defaults, router.md §1) as the engine's
 * evaluation options. Pure, so each default and bound is a table test.
 */
import type { ChatRequest } from '../types';

export interface Sampling {
  temperature: number;
  topK: number;
  topP: number;
  minP: number;
  seed?: number;
  /** Repetition penalty over the last `lastTokens` context tokens; absent when it would change nothing. */
  repeat?: { penalty: number; lastTokens: number; frequencyPenalty: number; presencePenalty: number };
  /** DRY penalty; absent at multiplier 0 (llama-server's default). */
  dry?: { strength: number; base: number; allowedLength: number; lastTokens: number | null };
  /** Completion tokens at most; null = until end of generation or the end of the context. */
  maxTokens: number | null;
}

/** llama-server's defaults (`/props` default_generation_settings). */
export const DEFAULTS = {
  temperature: 0.8,
  top_k: 40,
  top_p: 0.95,
  min_p: 0.05,
  repeat_penalty: 1.0,
  repeat_last_n: 64,
  dry_base: 1.75,
  dry_allowed_length: 2,
} as const;

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function int(v: unknown): number | undefined {
  const n = num(v);
  return n !== undefined && Number.isInteger(n) ? n : undefined;
}

export function samplingOf(req: ChatRequest): Sampling {
  const out: Sampling = {
    temperature: Math.max(0, num(req.temperature) ?? DEFAULTS.temperature),
    topK: Math.max(0, int(req.top_k) ?? DEFAULTS.top_k),
    topP: Math.min(1, Math.max(0, num(req.top_p) ?? DEFAULTS.top_p)),
    minP: Math.min(1, Math.max(0, num(req.min_p) ?? DEFAULTS.min_p)),
    maxTokens: null,
  };
  const seed = int(req.seed);
  if (seed !== undefined && seed >= 0) out.seed = seed;
  const maxTokens = int(req.max_tokens) ?? int(req.n_predict);
  if (maxTokens !== undefined && maxTokens >= 0) out.maxTokens = maxTokens;
  const penalty = num(req.repeat_penalty) ?? DEFAULTS.repeat_penalty;
  const frequencyPenalty = num(req.frequency_penalty) ?? 0;
  const presencePenalty = num(req.presence_penalty) ?? 0;
  const lastN = int(req.repeat_last_n) ?? DEFAULTS.repeat_last_n;
  if ((penalty !== 1 || frequencyPenalty !== 0 || presencePenalty !== 0) && lastN !== 0) {
    out.repeat = { penalty, lastTokens: lastN, frequencyPenalty, presencePenalty };
  }
  const dry = num(req.dry_multiplier) ?? 0;
  if (dry > 0) {
    const last = int(req.dry_penalty_last_n);
    out.dry = {
      strength: dry,
      base: num(req.dry_base) ?? DEFAULTS.dry_base,
      allowedLength: Math.max(1, int(req.dry_allowed_length) ?? DEFAULTS.dry_allowed_length),
      // llama-server: -1 = the whole context; the engine's null means the same.
      lastTokens: last === undefined || last < 0 ? null : last,
    };
  }
  return out;
}

/** The JSON schema of `response_format` (`json_schema.schema`, or `schema` for `json_object`), if any. */
export function responseSchema(req: ChatRequest): Record<string, unknown> | 'any_json' | null {
  const rf = req.response_format;
  if (!rf || typeof rf !== 'object') return null;
  const js = (rf as { json_schema?: unknown }).json_schema;
  if (rf.type === 'json_schema' && js && typeof js === 'object') {
    const schema = (js as { schema?: unknown }).schema;
    return schema && typeof schema === 'object' ? (schema as Record<string, unknown>) : 'any_json';
  }
  if (rf.type === 'json_object') {
    const schema = (rf as { schema?: unknown }).schema;
    return schema && typeof schema === 'object' ? (schema as Record<string, unknown>) : 'any_json';
  }
  return null;
}
