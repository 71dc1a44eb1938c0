/**
 * The one table of the hub's environment variables (hub and knowledge layer alike): each variable's name, its
 * documented default, its doc line and the reader that types and validates it. `SETTINGS` (derived from it)
 * is what env.recommended and the README's settings table document; a test keeps all three in step. Only
 * this module and its readers look at the environment: everything else receives typed settings.
 */
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { trimEndChars } from '../text-scan';
import { bool, choice, ConfigError, filePath, list, number, raw, text, url, wholeAtLeast, type ReadContext, type Reader } from './read';

interface Variable<T> {
  /** The default as the docs state it. */
  default: string;
  description: string;
  read: Reader<T>;
}

function v<T>(dflt: string, description: string, read: Reader<T>): Variable<T> {
  return { default: dflt, description, read };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The bundled demo knowledge base (FDA label MKUs), loaded when KNOWLEDGE_CONTENT is unset. */
export const DEMO_CONTENT = 'data/knowledge/demo';

export type AnchorSetting = 'wall_clock' | 'latest_record' | string;

const anchor: Reader<AnchorSetting | null> = ({ env }, name) => {
  const v = raw(env, name);
  if (v === undefined) return null;
  if (v === 'wall_clock' || v === 'latest_record') return v;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v)) return v;
  throw new ConfigError(name, `expected YYYY-MM-DD, wall_clock or latest_record, got '${v}'`);
};

const timezone: Reader<string | null> = ({ env }, name) => {
  const v = raw(env, name);
  if (v === undefined) return null;
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: v });
  } catch {
    throw new ConfigError(name, `unknown IANA time zone '${v}'`);
  }
  return v;
};

/** Comma-separated SHA-256 hex digests, lower-cased; `why` says what each entry must be. */
function digests(why: string): Reader<string[]> {
  const read = list();
  return (ctx, name) => {
    const hashes = read(ctx, name).map((h) => h.toLowerCase());
    for (const h of hashes) if (!/^[0-9a-f]{64}$/.test(h)) throw new ConfigError(name, why);
    return hashes;
  };
}

const buildRevision: Reader<string> = ({ env }, name) => {
  const v = raw(env, name);
  if (v === undefined || v === 'unknown') return 'unknown';
  if (!/^[0-9a-f]{40}$/i.test(v)) throw new ConfigError(name, 'must be a 40-character Git commit id (or unset)');
  return v.toLowerCase();
};

const existingFile: Reader<string | null> = ({ env, root }, name) => {
  const v = raw(env, name);
  if (v === undefined) return null;
  const file = nodePath.resolve(root, v);
  if (!fs.existsSync(file)) throw new ConfigError(name, `no such file '${file}'`);
  return file;
};

const optionalPath: Reader<string | null> = ({ env, root }, name) => {
  const v = raw(env, name);
  return v ? nodePath.resolve(root, v) : null;
};

/** A path, or null for `none`. */
function pathOrNone(dflt: string): Reader<string | null> {
  return ({ env, root }, name) => {
    const v = raw(env, name) ?? dflt;
    return v.toLowerCase() === 'none' ? null : nodePath.resolve(root, v);
  };
}

/** A value, or null for `none`. */
function textOrNone(dflt: string): Reader<string | null> {
  return ({ env }, name) => {
    const v = raw(env, name) ?? dflt;
    return v.toLowerCase() === 'none' ? null : v;
  };
}

// Drug safety's lenient fallbacks are the contract's (§9.1): a bad max age means 90, an unknown severity minor.
function lenientDays(dflt: number): Reader<number> {
  return ({ env }, name) => {
    const n = Number(raw(env, name) ?? String(dflt));
    return Number.isInteger(n) && n > 0 ? n : dflt;
  };
}

const lenientSeverity: Reader<'minor' | 'moderate' | 'major'> = ({ env }, name) => {
  const s = (raw(env, name) ?? 'minor').toLowerCase();
  return s === 'moderate' || s === 'major' ? s : 'minor';
};

/** `:memory:` as it is, any other path resolved. */
function dbPath(dflt: string): Reader<string> {
  return ({ env, root }, name) => {
    const p = raw(env, name) ?? dflt;
    return p === ':memory:' ? p : nodePath.resolve(root, p);
  };
}

/** Content files or folders: unset is the bundled demo (a missing folder is then only reported), `none` is nothing. */
function content(demo: string): Reader<{ paths: string[]; isDefault: boolean }> {
  const read = list();
  return (ctx, name) => {
    const setting = raw(ctx.env, name);
    if (setting === undefined) return { paths: [nodePath.resolve(ctx.root, demo)], isDefault: true };
    return { paths: setting.toLowerCase() === 'none' ? [] : read(ctx, name).map((p) => nodePath.resolve(ctx.root, p)), isDefault: false };
  };
}

/** An http(s) URL without trailing slashes, or null when unset. */
const optionalHttpUrl: Reader<string | null> = ({ env }, name) => {
  const base = raw(env, name);
  if (base === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(base);
  } catch {
    throw new ConfigError(name, 'not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(name, 'must be an http(s) URL');
  return trimEndChars(base, '/');
};

/**
 * OTLP export headers as the OpenTelemetry spec writes them: `key=value` pairs separated by commas, values
 * URL-encoded. They usually carry a collector's credentials, so no message ever repeats a value.
 */
const otlpHeaders: Reader<Record<string, string>> = ({ env }, name) => {
  const headers: Record<string, string> = {};
  for (const pair of (raw(env, name) ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    const key = (eq < 0 ? pair : pair.slice(0, eq)).trim();
    if (eq < 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) throw new ConfigError(name, 'expected key=value pairs separated by commas (header names of letters, digits and -)');
    try {
      headers[key.toLowerCase()] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      throw new ConfigError(name, `the value of '${key}' is not valid URL encoding`);
    }
  }
  return headers;
};

function positiveSeconds(dflt: number): Reader<number> {
  return ({ env }, name) => {
    const seconds = Number(raw(env, name) ?? String(dflt));
    if (!Number.isFinite(seconds) || seconds <= 0) throw new ConfigError(name, 'expected a number of seconds above 0');
    return seconds;
  };
}

/** Every variable, in the order of env.recommended. */
export const VARIABLES = {
  PORT: v('8080', 'TCP port the hub listens on.', number(8080, { min: 0, integer: true })),
  HOST: v('0.0.0.0', 'Interface the hub binds to.', text('0.0.0.0')),
  LLM_BACKEND: v('auto', 'router | embedded | auto: auto uses the llama.cpp router when LLM_BASE_URL is set, else the embedded engine over MODELS_DIR.', choice('auto', ['router', 'embedded', 'auto'], 'router, embedded or auto')),
  LLM_BASE_URL: v('(unset; http://localhost:8077 with LLM_BACKEND=router)', 'Base URL of the llama.cpp router (without /v1). Setting it selects the router backend under LLM_BACKEND=auto.', url('http://localhost:8077')),
  LLM_API_KEY: v('(empty)', 'Bearer key sent to the router; sent only when non-empty.', text('')),
  LLM_BACKENDS: v('(unset: one backend)', 'YAML or JSON file mapping each model id to its own backend: {base_url, api_key_env?, name?, max_concurrency?, max_queue?}, a list of them (replicas: least-busy choice, failover for calls that never reached a model) or embedded. Models it does not name go to LLM_BASE_URL (or the embedded engine with LLM_BACKEND=embedded), else are not served.', optionalPath),
  LLM_TEMPERATURE: v('0.2', 'Temperature for model calls that have no profile or request temperature.', number(0.2, { min: 0 })),
  LLM_MAX_TOKENS: v('2000', 'max_tokens for model calls when neither the request nor the profile sets one.', number(2000, { min: 1, integer: true })),
  LLM_PROVIDER: v('med-agent-hub', 'providerId reported in Catalyst profile evidence (clients.md §5 fixture: med-agent-hub).', text('med-agent-hub')),
  HUB_SSE_HEARTBEAT_SECONDS: v('0.5', 'Silence after which a staged stream writes a `: hb` comment (floor 0.1).', number(0.5, { min: 0 })),
  MODELS_DIR: v('./models', 'Embedded engine: folder of GGUF files (<model id>.gguf) and the optional models.yaml manifest.', filePath('models')),
  EMBEDDED_THREADS: v('CPU cores - 1 (at least 1)', 'Embedded engine: threads per model context (a manifest entry may set its own).', number(() => Math.max(1, os.availableParallelism() - 1), { min: 1, integer: true })),
  EMBEDDED_MAX_LOADED_MODELS: v('1', 'Embedded engine: models resident at once; the least recently used idle one is unloaded to make room.', number(1, { min: 1, integer: true })),
  EMBEDDED_PREFIX_REUSE: v('true', 'Embedded engine: re-evaluate only what follows the prompt prefix a sequence already holds (decision 8). false only to measure it.', bool(true)),
  ROUTER_MAX_CONCURRENCY: v('1', 'Router calls in flight at once (slot semaphore).', number(1, { min: 1, integer: true })),
  ROUTER_MAX_QUEUE: v('64', 'Calls that may wait for a slot; beyond it requests get 503 router_busy.', number(64, { min: 0, integer: true })),
  ROUTER_CONNECT_TIMEOUT_SECONDS: v('10', 'Timeout for opening a connection to the router.', number(10, { min: 0.001 })),
  ROUTER_IDLE_TIMEOUT_SECONDS: v('600', 'Longest wait for the router\'s headers or next body chunk; 0 = no limit. There is never a whole-request deadline.', number(600, { min: 0 })),
  ROUTER_DISCOVERY_TIMEOUT_SECONDS: v('3', 'Timeout of the router model inventory call behind GET /v1/models and GET /v1/hub/query-profiles (which answer within it even when the router hangs).', number(3, { min: 0.001 })),
  CATALYST_MAX_REQUEST_TIMEOUT_SECONDS: v('3600', 'Largest deadline a Catalyst role or warm call may ask for with X-Request-Timeout-Seconds (a larger value is clamped); without the header a call has no deadline.', number(3600, { min: 0.001 })),
  HUB_MAX_BODY_BYTES: v('8388608', 'Largest accepted request body; larger bodies get 413.', number(8 * 1024 * 1024, { min: 1024, integer: true })),
  HUB_MAX_CHART_RECORDS: v('20000', 'Largest number of numbered records accepted in one inline chart.', number(20000, { min: 1, integer: true })),
  HUB_API_KEYS: v('(unset: auth off)', 'Comma-separated SHA-256 hex digests of accepted API keys.', digests('each entry must be the SHA-256 hex digest of a key (npm run hash-key -- <key>)')),
  TEAM_TRACE_DIR: v('./trace', 'Directory of the per-turn trace (trace.jsonl).', filePath('trace')),
  HUB_TRACE_FLUSH_MS: v('50', 'Trace lines finished within this many milliseconds share one file write (0: each is written right after its turn); shutdown writes any still waiting.', number(50, { min: 0, integer: true })),
  OTEL_EXPORTER_OTLP_ENDPOINT: v('(unset: no OpenTelemetry)', 'Base URL of an OTLP/HTTP collector (e.g. http://localhost:4318). Setting it, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, turns on OpenTelemetry spans (OTLP JSON posted to {endpoint}/v1/traces); unset, no OpenTelemetry SDK is loaded.', optionalHttpUrl),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: v('(unset: {OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces)', 'Full URL spans are posted to, used as given; wins over OTEL_EXPORTER_OTLP_ENDPOINT.', optionalHttpUrl),
  OTEL_EXPORTER_OTLP_HEADERS: v('(unset)', 'Headers sent with every span export: key=value pairs separated by commas, values URL-encoded (a collector\'s API key, for example); never logged.', otlpHeaders),
  OTEL_EXPORTER_OTLP_TIMEOUT: v('10000', 'Longest one span export may take, retries included, in milliseconds; shutdown waits at most this long for the last spans.', number(10000, { min: 1, integer: true })),
  OTEL_SERVICE_NAME: v('med-agent-hub', 'service.name of the hub\'s spans.', text('med-agent-hub')),
  HUB_ANCHOR: v('(unset)', 'Fixed "today": YYYY-MM-DD, wall_clock or latest_record.', anchor),
  HUB_TIMEZONE: v('(unset: process zone)', 'IANA time zone used for wall_clock anchors.', timezone),
  LOG_LEVEL: v('info', 'pino log level (fatal, error, warn, info, debug, trace, silent).', choice('info', LOG_LEVELS, `one of ${LOG_LEVELS.join(', ')}`)),
  HUB_BUILD_REVISION: v('unknown', '40-hex Git commit of the build, recorded in traces; missing means unknown.', buildRevision),
  HUB_PROFILES_PATH: v('profiles/levels.yaml', 'Profile catalogue file.', filePath('profiles/levels.yaml')),
  HUB_PROMPTS_DIR: v('prompts', 'Directory of stage prompt files (<stem>.txt).', filePath('prompts')),
  HUB_TOKENIZER_JSON: v('(unset)', 'Path of a tokenizer.json for exact local counting of record costs (chat prompts are still counted by the router).', existingFile),
  HUB_TOKENIZER_MODELS: v('(unset: every model)', 'Comma-separated router model ids HUB_TOKENIZER_JSON is exact for.', list()),
  HUB_FIT_PROOF: v('byte_bound', 'byte_bound: a model call skips its pre-call token count when a sound bound (UTF-8 bytes plus the template, for a tokenizer probed to spend at least one byte per token) proves it fits; the exact figure is then the router\'s prompt_tokens. exact: every guarded call is counted first.', choice('byte_bound', ['byte_bound', 'exact'], 'byte_bound or exact')),
  SYNTH_REPEAT_PENALTY: v('1.15', 'Writer repeat penalty when the profile sets none.', number(1.15, { min: 0 })),
  SYNTH_DRY_MULTIPLIER: v('0', 'Writer DRY multiplier when the profile sets none.', number(0, { min: 0 })),
  ORCHESTRATOR_DRY_MULTIPLIER: v('0', 'Team gather: orchestrator DRY multiplier when the profile sets none.', number(0, { min: 0 })),
  EXPERT_DRY_MULTIPLIER: v('0.8', 'Team gather: medical expert DRY multiplier when the profile sets none.', number(0.8, { min: 0 })),
  HUB_DRAIN_SECONDS: v('30', 'On SIGTERM, how long in-flight requests may finish before they are settled and closed.', number(30, { min: 0 })),
  QUERYSTORE_BASE_URL: v('(empty)', 'OpenMRS QueryStore base URL; the three QUERYSTORE_* settings go together.', url('')),
  QUERYSTORE_USERNAME: v('(empty)', 'QueryStore service account.', text(null)),
  QUERYSTORE_PASSWORD: v('(empty)', 'QueryStore service account password.', text(null)),
  QUERYSTORE_CONNECT_TIMEOUT_SECONDS: v('5', 'Timeout for opening a connection to QueryStore.', number(5, { min: 0.001 })),
  QUERYSTORE_TIMEOUT_SECONDS: v('30', 'Longest a QueryStore request (one page of a chart, a ranked search or a context slice) may take.', number(30, { min: 0.001 })),
  QUERYSTORE_CACHE_ENTRIES: v('32', 'Patient ledgers kept in memory (revalidated with QueryStore on every turn, never written to disk).', number(32, { min: 1, integer: true })),
  QUERYSTORE_CACHE_MB: v('64', 'Bound on the bytes of the cached patient ledgers; a larger chart is served but not kept.', number(64, { min: 0.001 })),
  DRUG_SAFETY_SOURCE_FORMAT: v('json', 'json: a drug_safety_package.v1 file; atc: a WHO-ATC classification export (classification only, no rules).', choice('json', ['json', 'atc'], 'json or atc')),
  DRUG_SAFETY_DATASET_PATH: v('data/drug-safety/drug-reference.json', 'The drug-safety package (or ATC export). Missing, unreadable or malformed: reported at start-up and treated as absent (safety status unavailable).', filePath('data/drug-safety/drug-reference.json')),
  DRUG_SAFETY_CROSS_REACTIVITY_PATH: v('data/drug-safety/cross-reactivity-groups.json', 'Cross-reactivity groups (ATC prefixes, levels 2-5); none disables them.', pathOrNone('data/drug-safety/cross-reactivity-groups.json')),
  DRUG_SAFETY_WEIGHT_CONCEPT_UUID: v('5089AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'Concept of the weight obs used for per-dose mg/kg checks; none disables only that check.', textOrNone('5089AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')),
  DRUG_SAFETY_WEIGHT_MAX_AGE_DAYS: v('90', 'A weight older than this many days (before the reference date) is not used; a non-integer or value <= 0 means 90.', lenientDays(90)),
  DRUG_SAFETY_MIN_INTERACTION_SEVERITY: v('minor', 'Interaction rules rated below this (minor, moderate, major) are not shown; rules rated Unknown never are, unrated curated rules always are; an unknown value means minor.', lenientSeverity),
  KNOWLEDGE_STORE: v('sqlite', 'sqlite (embedded, default) | postgres (PostgreSQL + pgvector at KNOWLEDGE_DATABASE_URL).', choice('sqlite', ['sqlite', 'postgres'], 'sqlite or postgres')),
  KNOWLEDGE_DB_PATH: v('data/knowledge/knowledge.db', 'SQLite knowledge store file (:memory: for a store rebuilt from KNOWLEDGE_CONTENT at every start).', dbPath('data/knowledge/knowledge.db')),
  KNOWLEDGE_DATABASE_URL: v('(unset)', 'PostgreSQL connection string for KNOWLEDGE_STORE=postgres (never logged).', text(null)),
  KNOWLEDGE_EMBEDDER: v('hash', 'hash (deterministic, no model) | openai-compatible (POST {KNOWLEDGE_EMBEDDER_BASE_URL}/v1/embeddings). The index remembers its embedder; a mismatch stops start-up.', choice('hash', ['hash', 'openai-compatible'], 'hash or openai-compatible')),
  KNOWLEDGE_EMBEDDER_BASE_URL: v('(unset)', 'openai-compatible embedder: base URL without /v1 (the llama.cpp router can serve an embedding model).', text(null)),
  KNOWLEDGE_EMBEDDER_MODEL: v('(unset)', 'openai-compatible embedder: model name sent with each request.', text(null)),
  KNOWLEDGE_EMBEDDER_API_KEY: v('(empty)', 'openai-compatible embedder: bearer key, sent only when non-empty.', text('')),
  KNOWLEDGE_EMBEDDER_DIMENSION: v('512', 'Vector dimension of the embedder (hash: any size >= 8; openai-compatible: the model\'s).', wholeAtLeast(512, 8)),
  KNOWLEDGE_ENABLED: v('true', 'true | false: the knowledge routes (/v2/context, /v2/retrieve, /v2/retrieve/stream, /v1/answer, /mcp) are mounted in the hub; false removes them (404, and GET / says so). auto is read as true.', choice('true', ['auto', 'true', 'false'], 'true or false')),
  KNOWLEDGE_AUTH: v('keys', 'keys | off: keys = every knowledge request needs an lsk_ client key (401 AUTH_MISSING naming KNOWLEDGE_KEYS_FILE / KNOWLEDGE_API_KEY_HASHES while none is configured); off = the routes are open, for a trusted network only.', choice('keys', ['keys', 'off'], 'keys or off')),
  KNOWLEDGE_KEYS_FILE: v('(unset)', 'JSON file of knowledge clients: {"clients": [{"slug", "key_sha256", "active", "daily_quota"}]}; keys are lsk_<slug>_<32 hex>, stored only as SHA-256 (npm run hash-key -- <key>).', optionalPath),
  KNOWLEDGE_API_KEY_HASHES: v('(unset)', 'Comma-separated SHA-256 hex digests of accepted lsk_ keys (active, no quota); adds to KNOWLEDGE_KEYS_FILE.', digests('each entry must be the SHA-256 hex digest of an lsk_ key (npm run hash-key -- <key>), never the key itself')),
  KNOWLEDGE_CONTENT: v('data/knowledge/demo', 'Comma-separated JSONL content files or folders loaded into the store at start-up (re-loading unchanged content changes nothing); none loads nothing. The default, the bundled demo knowledge base, is skipped with a start-up warning when its folder is missing; a path you set must exist.', content(DEMO_CONTENT)),
  CTX_ALLOW_UNREVIEWED: v('false', 'true lets /v2/context honour opts.include_unreviewed (refused with 403 otherwise).', bool(false)),
  ENV: v('(unset)', 'Deployment kind; test also allows opts.include_unreviewed.', text('')),
  KNOWLEDGE_PORT: v('8000', 'Port of the stand-alone knowledge service (npm run knowledge).', wholeAtLeast(8000, 0)),
  KNOWLEDGE_JUDGE_MODEL: v('(unset: the deterministic proxy judge)', 'Router model id that judges sufficiency on /v2/context when a request sets opts.judge_enabled, and writes the adjudicated answer of opts.agent_enabled requests (hub-mounted routes only).', text(null)),
  KNOWLEDGE_SOURCE: v('auto', 'auto | off: the knowledge-base context source (profiles list it in context.supplemental_sources). auto = POST {LOCUS_BASE_URL}/v2/context when LOCUS_BASE_URL is set, else the hub\'s own knowledge engine in process (opened even when the knowledge routes are not mounted); off = it adds nothing and reports status off.', choice('auto', ['auto', 'off'], 'auto or off')),
  LOCUS_BASE_URL: v('(unset: in process)', 'Base URL of a Locus-compatible knowledge service used by the knowledge-base source (POST /v2/context).', optionalHttpUrl),
  LOCUS_API_KEY: v('(empty)', 'Bearer lsk_ key sent to LOCUS_BASE_URL; sent only when non-empty, never logged or traced.', text('')),
  LOCUS_TIMEOUT_SECONDS: v('10', 'Longest a knowledge-base /v2/context call may take; on timeout or any error the turn goes on without knowledge records (traced as failed).', positiveSeconds(10)),
  KNOWLEDGE_MAX_MANDATORY: v('8', 'Safety-critical / safety-item MKUs kept mandatory per turn (best ranked first); beyond it they are ordinary records (traced as demoted).', wholeAtLeast(8, 0)),
  KNOWLEDGE_SOURCE_K: v('5', 'Ordinary (non-safety) MKU records the knowledge-base source adds per turn, best ranked first.', wholeAtLeast(5, 0)),
};

export type VariableName = keyof typeof VARIABLES;
export type VariableValue<K extends VariableName> = (typeof VARIABLES)[K] extends Variable<infer T> ? T : never;

/** One variable's typed, validated value (ConfigError naming it when it is bad). */
export function readVariable<K extends VariableName>(ctx: ReadContext, name: K): VariableValue<K> {
  return (VARIABLES[name] as Variable<VariableValue<K>>).read(ctx, name);
}

export interface SettingDoc {
  name: string;
  default: string;
  description: string;
}

/** Documentation of every setting; the order is the order of env.recommended. */
export const SETTINGS: readonly SettingDoc[] = Object.entries(VARIABLES).map(([name, variable]) => ({ name, default: variable.default, description: variable.description }));
