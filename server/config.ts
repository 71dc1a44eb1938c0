/**
 * Every setting of the hub, read from the environment once at start-up, typed and validated.
 * A bad value stops start-up with a message naming the variable (ConfigError).
 * `SETTINGS` is the single list of settings: env.recommended and the README document each one
 * (a test keeps them in step).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trimEndChars } from './text-scan';
import type { DrugSafetySettings } from './checks/drug-safety';
import { KNOWLEDGE_SETTING_DOCS, knowledgeSettings, type KnowledgeConfig } from './knowledge/settings';
import { KNOWLEDGE_SOURCE_SETTING_DOCS, knowledgeSourceSettings, type KnowledgeSourceSettings } from './knowledge/context-source/settings';

export type AnchorSetting = 'wall_clock' | 'latest_record' | string;

export interface Config {
  port: number;
  host: string;
  /** Which engine answers model calls (decision 25): the HTTP router or the embedded llama.cpp engine. */
  llmBackend: 'router' | 'embedded';
  /** The router's base URL; '' on the embedded backend. */
  llmBaseUrl: string;
  llmApiKey: string;
  /** The embedded engine's settings (read on every backend, used on `embedded`). */
  embedded: EmbeddedConfig;
  llmTemperature: number;
  llmMaxTokens: number;
  llmProvider: string;
  sseHeartbeatSeconds: number;
  routerMaxConcurrency: number;
  routerMaxQueue: number;
  routerConnectTimeoutMs: number;
  /** Longest silence between two body chunks of a router response; 0 disables (decision 6). */
  routerIdleTimeoutMs: number;
  routerDiscoveryTimeoutMs: number;
  /** Ceiling of a Catalyst role call's optional X-Request-Timeout-Seconds deadline (no header: no deadline). */
  catalystMaxRequestTimeoutSeconds: number;
  maxBodyBytes: number;
  maxChartRecords: number;
  apiKeyHashes: string[];
  traceDir: string;
  /** How long a trace line may wait to share one file write with the lines after it. */
  traceFlushMs: number;
  anchor: AnchorSetting | null;
  timezone: string | null;
  logLevel: string;
  buildRevision: string;
  profilesPath: string;
  promptsDir: string;
  /** Optional local tokenizer.json for exact record counts without a router round trip. */
  tokenizerJson: string | null;
  tokenizerModels: string[];
  /** `byte_bound`: later stages skip their pre-call count when a sound bound proves fit (decision 24); `exact`: count every call. */
  fitProof: 'byte_bound' | 'exact';
  synthRepeatPenalty: number;
  synthDryMultiplier: number;
  /** DRY multipliers of the team gather calls when the profile sets none (§4.6). */
  orchestratorDryMultiplier: number;
  expertDryMultiplier: number;
  drainSeconds: number;
  querystore: QuerystoreConfig | null;
  /** Deterministic drug safety (hub-contract §9.1): sources and check settings. */
  drugSafety: DrugSafetySettings;
  /** The knowledge layer (knowledge-layer.md §6): routes, keys, content, store, embedder. */
  knowledge: KnowledgeConfig;
  /** The hub's knowledge-base context source (knowledge-layer.md §6.4): transport and limits. */
  knowledgeSource: KnowledgeSourceSettings;
}

export interface EmbeddedConfig {
  modelsDir: string;
  threads: number;
  maxLoadedModels: number;
  /** Decision 8 in process; off only to measure what reuse saves. */
  prefixReuse: boolean;
}

export interface QuerystoreConfig {
  baseUrl: string;
  username: string;
  password: string;
  connectTimeoutMs: number;
  /** Per QueryStore request: the wait for headers, between body chunks and for the whole page. */
  timeoutMs: number;
  cacheEntries: number;
  cacheBytes: number;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export interface SettingDoc {
  name: string;
  default: string;
  description: string;
}

/** Documentation of every setting; the order is the order of env.recommended. */
export const SETTINGS: readonly SettingDoc[] = [
  { name: 'PORT', default: '8080', description: 'TCP port the hub listens on.' },
  { name: 'HOST', default: '0.0.0.0', description: 'Interface the hub binds to.' },
  { name: 'LLM_BACKEND', default: 'auto', description: 'router | embedded | auto: auto uses the llama.cpp router when LLM_BASE_URL is set, else the embedded engine over MODELS_DIR.' },
  { name: 'LLM_BASE_URL', default: '(unset; http://localhost:8077 with LLM_BACKEND=router)', description: 'Base URL of the llama.cpp router (without /v1). Setting it selects the router backend under LLM_BACKEND=auto.' },
  { name: 'LLM_API_KEY', default: '(empty)', description: 'Bearer key sent to the router; sent only when non-empty.' },
  { name: 'LLM_TEMPERATURE', default: '0.2', description: 'Temperature for model calls that have no profile or request temperature.' },
  { name: 'LLM_MAX_TOKENS', default: '2000', description: 'max_tokens for model calls when neither the request nor the profile sets one.' },
  { name: 'LLM_PROVIDER', default: 'med-agent-hub', description: 'providerId reported in Catalyst profile evidence (clients.md §5 fixture: med-agent-hub).' },
  { name: 'HUB_SSE_HEARTBEAT_SECONDS', default: '0.5', description: 'Silence after which a staged stream writes a `: hb` comment (floor 0.1).' },
  { name: 'MODELS_DIR', default: './models', description: 'Embedded engine: folder of GGUF files (<model id>.gguf) and the optional models.yaml manifest.' },
  { name: 'EMBEDDED_THREADS', default: 'CPU cores - 1 (at least 1)', description: 'Embedded engine: threads per model context (a manifest entry may set its own).' },
  { name: 'EMBEDDED_MAX_LOADED_MODELS', default: '1', description: 'Embedded engine: models resident at once; the least recently used idle one is unloaded to make room.' },
  { name: 'EMBEDDED_PREFIX_REUSE', default: 'true', description: 'Embedded engine: re-evaluate only what follows the prompt prefix a sequence already holds (decision 8). false only to measure it.' },
  { name: 'ROUTER_MAX_CONCURRENCY', default: '1', description: 'Router calls in flight at once (slot semaphore).' },
  { name: 'ROUTER_MAX_QUEUE', default: '64', description: 'Calls that may wait for a slot; beyond it requests get 503 router_busy.' },
  { name: 'ROUTER_CONNECT_TIMEOUT_SECONDS', default: '10', description: 'Timeout for opening a connection to the router.' },
  { name: 'ROUTER_IDLE_TIMEOUT_SECONDS', default: '600', description: 'Longest wait for the router\'s headers or next body chunk; 0 = no limit. There is never a whole-request deadline.' },
  { name: 'ROUTER_DISCOVERY_TIMEOUT_SECONDS', default: '3', description: 'Timeout of the router model inventory call behind GET /v1/models and GET /v1/hub/query-profiles (which answer within it even when the router hangs).' },
  { name: 'CATALYST_MAX_REQUEST_TIMEOUT_SECONDS', default: '3600', description: 'Largest deadline a Catalyst role or warm call may ask for with X-Request-Timeout-Seconds (a larger value is clamped); without the header a call has no deadline.' },
  { name: 'HUB_MAX_BODY_BYTES', default: '8388608', description: 'Largest accepted request body; larger bodies get 413.' },
  { name: 'HUB_MAX_CHART_RECORDS', default: '20000', description: 'Largest number of numbered records accepted in one inline chart.' },
  { name: 'HUB_API_KEYS', default: '(unset: auth off)', description: 'Comma-separated SHA-256 hex digests of accepted API keys.' },
  { name: 'TEAM_TRACE_DIR', default: './trace', description: 'Directory of the per-turn trace (trace.jsonl).' },
  { name: 'HUB_TRACE_FLUSH_MS', default: '50', description: 'Trace lines finished within this many milliseconds share one file write (0: each is written right after its turn); shutdown writes any still waiting.' },
  { name: 'HUB_ANCHOR', default: '(unset)', description: 'Fixed "today": YYYY-MM-DD, wall_clock or latest_record.' },
  { name: 'HUB_TIMEZONE', default: '(unset: process zone)', description: 'IANA time zone used for wall_clock anchors.' },
  { name: 'LOG_LEVEL', default: 'info', description: 'pino log level (fatal, error, warn, info, debug, trace, silent).' },
  { name: 'HUB_BUILD_REVISION', default: 'unknown', description: '40-hex Git commit of the build, recorded in traces; missing means unknown.' },
  { name: 'HUB_PROFILES_PATH', default: 'profiles/levels.yaml', description: 'Profile catalogue file.' },
  { name: 'HUB_PROMPTS_DIR', default: 'prompts', description: 'Directory of stage prompt files (<stem>.txt).' },
  { name: 'HUB_TOKENIZER_JSON', default: '(unset)', description: 'Path of a tokenizer.json for exact local counting of record costs (chat prompts are still counted by the router).' },
  { name: 'HUB_TOKENIZER_MODELS', default: '(unset: every model)', description: 'Comma-separated router model ids HUB_TOKENIZER_JSON is exact for.' },
  { name: 'HUB_FIT_PROOF', default: 'byte_bound', description: 'byte_bound: a model call skips its pre-call token count when a sound bound (UTF-8 bytes plus the template, for a tokenizer probed to spend at least one byte per token) proves it fits; the exact figure is then the router\'s prompt_tokens. exact: every guarded call is counted first.' },
  { name: 'SYNTH_REPEAT_PENALTY', default: '1.15', description: 'Writer repeat penalty when the profile sets none.' },
  { name: 'SYNTH_DRY_MULTIPLIER', default: '0', description: 'Writer DRY multiplier when the profile sets none.' },
  { name: 'ORCHESTRATOR_DRY_MULTIPLIER', default: '0', description: 'Team gather: orchestrator DRY multiplier when the profile sets none.' },
  { name: 'EXPERT_DRY_MULTIPLIER', default: '0.8', description: 'Team gather: medical expert DRY multiplier when the profile sets none.' },
  { name: 'HUB_DRAIN_SECONDS', default: '30', description: 'On SIGTERM, how long in-flight requests may finish before they are settled and closed.' },
  { name: 'QUERYSTORE_BASE_URL', default: '(empty)', description: 'OpenMRS QueryStore base URL; the three QUERYSTORE_* settings go together.' },
  { name: 'QUERYSTORE_USERNAME', default: '(empty)', description: 'QueryStore service account.' },
  { name: 'QUERYSTORE_PASSWORD', default: '(empty)', description: 'QueryStore service account password.' },
  { name: 'QUERYSTORE_CONNECT_TIMEOUT_SECONDS', default: '5', description: 'Timeout for opening a connection to QueryStore.' },
  { name: 'QUERYSTORE_TIMEOUT_SECONDS', default: '30', description: 'Longest a QueryStore request (one page of a chart, a ranked search or a context slice) may take.' },
  { name: 'QUERYSTORE_CACHE_ENTRIES', default: '32', description: 'Patient ledgers kept in memory (revalidated with QueryStore on every turn, never written to disk).' },
  { name: 'QUERYSTORE_CACHE_MB', default: '64', description: 'Bound on the bytes of the cached patient ledgers; a larger chart is served but not kept.' },
  { name: 'DRUG_SAFETY_SOURCE_FORMAT', default: 'json', description: 'json: a drug_safety_package.v1 file; atc: a WHO-ATC classification export (classification only, no rules).' },
  { name: 'DRUG_SAFETY_DATASET_PATH', default: 'data/drug-safety/drug-reference.json', description: 'The drug-safety package (or ATC export). Missing, unreadable or malformed: reported at start-up and treated as absent (safety status unavailable).' },
  { name: 'DRUG_SAFETY_CROSS_REACTIVITY_PATH', default: 'data/drug-safety/cross-reactivity-groups.json', description: 'Cross-reactivity groups (ATC prefixes, levels 2-5); none disables them.' },
  { name: 'DRUG_SAFETY_WEIGHT_CONCEPT_UUID', default: '5089AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', description: 'Concept of the weight obs used for per-dose mg/kg checks; none disables only that check.' },
  { name: 'DRUG_SAFETY_WEIGHT_MAX_AGE_DAYS', default: '90', description: 'A weight older than this many days (before the reference date) is not used; a non-integer or value <= 0 means 90.' },
  { name: 'DRUG_SAFETY_MIN_INTERACTION_SEVERITY', default: 'minor', description: 'Interaction rules rated below this (minor, moderate, major) are not shown; rules rated Unknown never are, unrated curated rules always are; an unknown value means minor.' },
  ...KNOWLEDGE_SETTING_DOCS,
  ...KNOWLEDGE_SOURCE_SETTING_DOCS,
];

type Env = Record<string, string | undefined>;

function raw(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function num(env: Env, name: string, dflt: number, opts: { min?: number; integer?: boolean } = {}): number {
  const v = raw(env, name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new ConfigError(name, `expected a number, got '${v}'`);
  if (opts.integer && !Number.isInteger(n)) throw new ConfigError(name, `expected a whole number, got '${v}'`);
  if (opts.min !== undefined && n < opts.min) throw new ConfigError(name, `must be at least ${opts.min}, got '${v}'`);
  return n;
}

function url(env: Env, name: string, dflt: string): string {
  const v = raw(env, name) ?? dflt;
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    throw new ConfigError(name, `not a valid URL: '${redactUrlLike(v)}'`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(name, 'must be an http(s) URL');
  return trimEndChars(v, '/'); // a scan: `/\/+$/` retried a run of slashes from each of its positions
}

function redactUrlLike(v: string): string {
  return v.replace(/\/\/[^@/]*@/, '//[redacted]@');
}

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

function anchorSetting(env: Env): AnchorSetting | null {
  const v = raw(env, 'HUB_ANCHOR');
  if (v === undefined) return null;
  if (v === 'wall_clock' || v === 'latest_record') return v;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v)) return v;
  throw new ConfigError('HUB_ANCHOR', `expected YYYY-MM-DD, wall_clock or latest_record, got '${v}'`);
}

function timezone(env: Env): string | null {
  const v = raw(env, 'HUB_TIMEZONE');
  if (v === undefined) return null;
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: v });
  } catch {
    throw new ConfigError('HUB_TIMEZONE', `unknown IANA time zone '${v}'`);
  }
  return v;
}

function apiKeyHashes(env: Env): string[] {
  const v = raw(env, 'HUB_API_KEYS');
  if (v === undefined) return [];
  const hashes = v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const h of hashes) {
    if (!/^[0-9a-f]{64}$/.test(h)) throw new ConfigError('HUB_API_KEYS', 'each entry must be the SHA-256 hex digest of a key (npm run hash-key -- <key>)');
  }
  return hashes;
}

function querystore(env: Env): Config['querystore'] {
  const names = ['QUERYSTORE_BASE_URL', 'QUERYSTORE_USERNAME', 'QUERYSTORE_PASSWORD'];
  const set = names.filter((n) => raw(env, n) !== undefined);
  if (set.length === 0) return null;
  if (set.length !== names.length) {
    throw new ConfigError(names.find((n) => raw(env, n) === undefined)!, 'QUERYSTORE_BASE_URL, QUERYSTORE_USERNAME and QUERYSTORE_PASSWORD must be set together');
  }
  return {
    baseUrl: url(env, 'QUERYSTORE_BASE_URL', ''),
    username: raw(env, 'QUERYSTORE_USERNAME')!,
    password: raw(env, 'QUERYSTORE_PASSWORD')!,
    connectTimeoutMs: num(env, 'QUERYSTORE_CONNECT_TIMEOUT_SECONDS', 5, { min: 0.001 }) * 1000,
    timeoutMs: num(env, 'QUERYSTORE_TIMEOUT_SECONDS', 30, { min: 0.001 }) * 1000,
    cacheEntries: num(env, 'QUERYSTORE_CACHE_ENTRIES', 32, { min: 1, integer: true }),
    cacheBytes: Math.round(num(env, 'QUERYSTORE_CACHE_MB', 64, { min: 0.001 }) * 1024 * 1024),
  };
}

/** DRUG_SAFETY_* (§9.1): the lenient fallbacks are the contract's (bad max age ⇒ 90, unknown severity ⇒ minor). */
function drugSafety(env: Env, root: string): DrugSafetySettings {
  const format = (raw(env, 'DRUG_SAFETY_SOURCE_FORMAT') ?? 'json').toLowerCase();
  if (format !== 'json' && format !== 'atc') throw new ConfigError('DRUG_SAFETY_SOURCE_FORMAT', `expected json or atc, got '${format}'`);
  const groups = raw(env, 'DRUG_SAFETY_CROSS_REACTIVITY_PATH') ?? 'data/drug-safety/cross-reactivity-groups.json';
  const weight = raw(env, 'DRUG_SAFETY_WEIGHT_CONCEPT_UUID') ?? '5089AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  const maxAge = Number(raw(env, 'DRUG_SAFETY_WEIGHT_MAX_AGE_DAYS') ?? '90');
  const severity = (raw(env, 'DRUG_SAFETY_MIN_INTERACTION_SEVERITY') ?? 'minor').toLowerCase();
  return {
    format,
    datasetPath: path.resolve(root, raw(env, 'DRUG_SAFETY_DATASET_PATH') ?? 'data/drug-safety/drug-reference.json'),
    crossReactivityPath: groups.toLowerCase() === 'none' ? null : path.resolve(root, groups),
    weightConceptUuid: weight.toLowerCase() === 'none' ? null : weight,
    weightMaxAgeDays: Number.isInteger(maxAge) && maxAge > 0 ? maxAge : 90,
    minInteractionSeverity: severity === 'moderate' || severity === 'major' ? severity : 'minor',
  };
}

/** LLM_BACKEND and LLM_BASE_URL together: `auto` is the router exactly when a router URL is given. */
function backend(env: Env): Pick<Config, 'llmBackend' | 'llmBaseUrl'> {
  const setting = (raw(env, 'LLM_BACKEND') ?? 'auto').toLowerCase();
  if (setting !== 'router' && setting !== 'embedded' && setting !== 'auto') {
    throw new ConfigError('LLM_BACKEND', `expected router, embedded or auto, got '${setting}'`);
  }
  const hasUrl = raw(env, 'LLM_BASE_URL') !== undefined;
  if (setting === 'embedded' || (setting === 'auto' && !hasUrl)) return { llmBackend: 'embedded', llmBaseUrl: '' };
  return { llmBackend: 'router', llmBaseUrl: url(env, 'LLM_BASE_URL', 'http://localhost:8077') };
}

function embedded(env: Env, root: string): EmbeddedConfig {
  const reuse = (raw(env, 'EMBEDDED_PREFIX_REUSE') ?? 'true').toLowerCase();
  if (reuse !== 'true' && reuse !== 'false') throw new ConfigError('EMBEDDED_PREFIX_REUSE', `expected true or false, got '${reuse}'`);
  return {
    modelsDir: path.resolve(root, raw(env, 'MODELS_DIR') ?? 'models'),
    // One core is left to the hub itself: engine threads that spin on every core starve it (issue 13's figures).
    threads: num(env, 'EMBEDDED_THREADS', Math.max(1, os.availableParallelism() - 1), { min: 1, integer: true }),
    maxLoadedModels: num(env, 'EMBEDDED_MAX_LOADED_MODELS', 1, { min: 1, integer: true }),
    prefixReuse: reuse === 'true',
  };
}

function buildRevision(env: Env): string {
  const v = raw(env, 'HUB_BUILD_REVISION');
  if (v === undefined || v === 'unknown') return 'unknown';
  if (!/^[0-9a-f]{40}$/i.test(v)) throw new ConfigError('HUB_BUILD_REVISION', 'must be a 40-character Git commit id (or unset)');
  return v.toLowerCase();
}

function tokenizerJson(env: Env, root: string): string | null {
  const v = raw(env, 'HUB_TOKENIZER_JSON');
  if (v === undefined) return null;
  const file = path.resolve(root, v);
  if (!fs.existsSync(file)) throw new ConfigError('HUB_TOKENIZER_JSON', `no such file '${file}'`);
  return file;
}

function fitProof(env: Env): Config['fitProof'] {
  const v = (raw(env, 'HUB_FIT_PROOF') ?? 'byte_bound').toLowerCase();
  if (v !== 'byte_bound' && v !== 'exact') throw new ConfigError('HUB_FIT_PROOF', `expected byte_bound or exact, got '${v}'`);
  return v;
}

/** A process entry point's configuration: a bad setting ends the process (exit 2) with the message, never a stack. */
export function loadConfigOrExit(program: string): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${program}: configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** Reads and validates the whole configuration; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env, root: string = process.cwd()): Config {
  const logLevel = (raw(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.has(logLevel)) throw new ConfigError('LOG_LEVEL', `expected one of ${[...LOG_LEVELS].join(', ')}, got '${logLevel}'`);
  const host = raw(env, 'HOST') ?? '0.0.0.0';
  return {
    port: num(env, 'PORT', 8080, { min: 0, integer: true }),
    host,
    ...backend(env),
    embedded: embedded(env, root),
    llmApiKey: raw(env, 'LLM_API_KEY') ?? '',
    llmTemperature: num(env, 'LLM_TEMPERATURE', 0.2, { min: 0 }),
    llmMaxTokens: num(env, 'LLM_MAX_TOKENS', 2000, { min: 1, integer: true }),
    llmProvider: raw(env, 'LLM_PROVIDER') ?? 'med-agent-hub',
    sseHeartbeatSeconds: Math.max(0.1, num(env, 'HUB_SSE_HEARTBEAT_SECONDS', 0.5, { min: 0 })),
    routerMaxConcurrency: num(env, 'ROUTER_MAX_CONCURRENCY', 1, { min: 1, integer: true }),
    routerMaxQueue: num(env, 'ROUTER_MAX_QUEUE', 64, { min: 0, integer: true }),
    routerConnectTimeoutMs: num(env, 'ROUTER_CONNECT_TIMEOUT_SECONDS', 10, { min: 0.001 }) * 1000,
    routerIdleTimeoutMs: num(env, 'ROUTER_IDLE_TIMEOUT_SECONDS', 600, { min: 0 }) * 1000,
    routerDiscoveryTimeoutMs: num(env, 'ROUTER_DISCOVERY_TIMEOUT_SECONDS', 3, { min: 0.001 }) * 1000,
    // Bounded so a deadline always fits a timer (setTimeout holds at most ~24.8 days).
    catalystMaxRequestTimeoutSeconds: Math.min(num(env, 'CATALYST_MAX_REQUEST_TIMEOUT_SECONDS', 3600, { min: 0.001 }), 2_000_000),
    maxBodyBytes: num(env, 'HUB_MAX_BODY_BYTES', 8 * 1024 * 1024, { min: 1024, integer: true }),
    maxChartRecords: num(env, 'HUB_MAX_CHART_RECORDS', 20000, { min: 1, integer: true }),
    apiKeyHashes: apiKeyHashes(env),
    traceDir: path.resolve(root, raw(env, 'TEAM_TRACE_DIR') ?? 'trace'),
    traceFlushMs: num(env, 'HUB_TRACE_FLUSH_MS', 50, { min: 0, integer: true }),
    anchor: anchorSetting(env),
    timezone: timezone(env),
    logLevel,
    buildRevision: buildRevision(env),
    profilesPath: path.resolve(root, raw(env, 'HUB_PROFILES_PATH') ?? 'profiles/levels.yaml'),
    promptsDir: path.resolve(root, raw(env, 'HUB_PROMPTS_DIR') ?? 'prompts'),
    tokenizerJson: tokenizerJson(env, root),
    tokenizerModels: (raw(env, 'HUB_TOKENIZER_MODELS') ?? '').split(',').map((m) => m.trim()).filter(Boolean),
    fitProof: fitProof(env),
    synthRepeatPenalty: num(env, 'SYNTH_REPEAT_PENALTY', 1.15, { min: 0 }),
    synthDryMultiplier: num(env, 'SYNTH_DRY_MULTIPLIER', 0, { min: 0 }),
    orchestratorDryMultiplier: num(env, 'ORCHESTRATOR_DRY_MULTIPLIER', 0, { min: 0 }),
    expertDryMultiplier: num(env, 'EXPERT_DRY_MULTIPLIER', 0.8, { min: 0 }),
    drainSeconds: num(env, 'HUB_DRAIN_SECONDS', 30, { min: 0 }),
    querystore: querystore(env),
    drugSafety: drugSafety(env, root),
    knowledge: knowledgeSettings(env, root, (variable, message) => {
      throw new ConfigError(variable, message);
    }),
    knowledgeSource: knowledgeSourceSettings(env, (variable, message) => {
      throw new ConfigError(variable, message);
    }),
  };
}
