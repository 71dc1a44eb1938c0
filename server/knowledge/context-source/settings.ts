/**
 * Settings of the hub's `knowledge-base` context source (knowledge-layer.md §6.4): whether it runs, which
 * transport it uses (the hub's own knowledge engine in process, or a Locus-compatible `/v2/context` over
 * HTTP), and how much of the ledger it may take. Parsed here, reported through config.ts (`Config.knowledgeSource`,
 * these docs spread into its SETTINGS list). `fail` throws the caller's ConfigError (no import cycle).
 */
import { int, raw } from '../settings';
import { trimEndChars } from '../../text-scan';

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

type Env = Record<string, string | undefined>;
type Fail = (variable: string, message: string) => never;

export const KNOWLEDGE_SOURCE_SETTING_DOCS = [
  { name: 'KNOWLEDGE_SOURCE', default: 'auto', description: 'auto | off: the knowledge-base context source (profiles list it in context.supplemental_sources). auto = POST {LOCUS_BASE_URL}/v2/context when LOCUS_BASE_URL is set, else the hub\'s own knowledge engine in process (opened even when the knowledge routes are not mounted); off = it adds nothing and reports status off.' },
  { name: 'LOCUS_BASE_URL', default: '(unset: in process)', description: 'Base URL of a Locus-compatible knowledge service used by the knowledge-base source (POST /v2/context).' },
  { name: 'LOCUS_API_KEY', default: '(empty)', description: 'Bearer lsk_ key sent to LOCUS_BASE_URL; sent only when non-empty, never logged or traced.' },
  { name: 'LOCUS_TIMEOUT_SECONDS', default: '10', description: 'Longest a knowledge-base /v2/context call may take; on timeout or any error the turn goes on without knowledge records (traced as failed).' },
  { name: 'KNOWLEDGE_MAX_MANDATORY', default: '8', description: 'Safety-critical / safety-item MKUs kept mandatory per turn (best ranked first); beyond it they are ordinary records (traced as demoted).' },
  { name: 'KNOWLEDGE_SOURCE_K', default: '5', description: 'Ordinary (non-safety) MKU records the knowledge-base source adds per turn, best ranked first.' },
] as const;

export function knowledgeSourceSettings(env: Env, fail: Fail): KnowledgeSourceSettings {
  const mode = (raw(env, 'KNOWLEDGE_SOURCE') ?? 'auto').toLowerCase();
  if (mode !== 'auto' && mode !== 'off') fail('KNOWLEDGE_SOURCE', `expected auto or off, got '${mode}'`);
  const base = raw(env, 'LOCUS_BASE_URL') ?? null;
  if (base !== null) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(base);
    } catch {
      fail('LOCUS_BASE_URL', 'not a valid URL');
    }
    if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') fail('LOCUS_BASE_URL', 'must be an http(s) URL');
  }
  const seconds = Number(raw(env, 'LOCUS_TIMEOUT_SECONDS') ?? '10');
  if (!Number.isFinite(seconds) || seconds <= 0) fail('LOCUS_TIMEOUT_SECONDS', 'expected a number of seconds above 0');
  return {
    mode: mode as 'auto' | 'off',
    locusBaseUrl: base === null ? null : trimEndChars(base, '/'),
    locusApiKey: raw(env, 'LOCUS_API_KEY') ?? '',
    timeoutMs: Math.round(seconds * 1000),
    maxMandatory: int(env, 'KNOWLEDGE_MAX_MANDATORY', 8, 0, fail),
    k: int(env, 'KNOWLEDGE_SOURCE_K', 5, 0, fail),
  };
}

/** The source needs the hub's own knowledge engine (store + pipeline) in process. */
export function needsEmbeddedEngine(s: KnowledgeSourceSettings): boolean {
  return s.mode === 'auto' && s.locusBaseUrl === null;
}
