/**
 * Every setting of the hub, read from the environment once at start-up, typed and validated.
 * A bad value stops start-up with a message naming the variable (ConfigError). Each variable is read
 * through its row of the one table (variables.ts); this module assembles the rows into `Config`, with the
 * rules that tie several variables together.
 */
import { loadBackendMap, type BackendMapConfig } from './backend-map';
import { knowledgeSettings, type KnowledgeConfig } from './knowledge';
import { knowledgeSourceSettings, type KnowledgeSourceSettings } from './knowledge-source';
import { ConfigError, raw, type Env, type ReadContext } from './read';
import { readVariable, type AnchorSetting, type VariableName, type VariableValue } from './variables';

export interface Config {
  port: number;
  host: string;
  /** Which engine answers model calls (decision 25): the HTTP router or the embedded llama.cpp engine. */
  llmBackend: 'router' | 'embedded';
  /** The router's base URL; '' on the embedded backend. */
  llmBaseUrl: string;
  llmApiKey: string;
  /**
   * LLM_BACKENDS: each model id on its own backend (routers, replicas, the embedded engine), or null for the
   * one backend above. With a map, `llmBackend`/`llmBaseUrl` only say where models the map does not name go.
   */
  llmBackends: BackendMapConfig | null;
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
  drugSafety: DrugSafetyConfig;
  /** The knowledge layer (knowledge-layer.md §6): routes, keys, content, store, embedder. */
  knowledge: KnowledgeConfig;
  /** The hub's knowledge-base context source (knowledge-layer.md §6.4): transport and limits. */
  knowledgeSource: KnowledgeSourceSettings;
  /** OpenTelemetry spans over OTLP/HTTP; null (no endpoint set) = off, and no OpenTelemetry SDK is loaded. */
  telemetry: TelemetryConfig | null;
}

/** Where and how spans are exported (the standard OTEL_* variables, read through the one table). */
export interface TelemetryConfig {
  /** The full URL spans are posted to (OTLP/HTTP, JSON). */
  tracesUrl: string;
  /** Sent with every export; may hold credentials: never logged. */
  headers: Readonly<Record<string, string>>;
  serviceName: string;
  /** Longest one export may take, retries included; also shutdown's wait for the last spans. */
  timeoutMs: number;
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

/** Drug safety's settings (the shape `checks/drug-safety` takes: its sources and its check knobs). */
export interface DrugSafetyConfig {
  format: 'json' | 'atc';
  datasetPath: string;
  /** null = cross-reactivity groups disabled (`none`). */
  crossReactivityPath: string | null;
  /** null = the per-dose mg/kg check is disabled (`none`). */
  weightConceptUuid: string | null;
  weightMaxAgeDays: number;
  minInteractionSeverity: 'minor' | 'moderate' | 'major';
}

type Read = <K extends VariableName>(name: K) => VariableValue<K>;

function querystore(env: Env, read: Read): Config['querystore'] {
  const names = ['QUERYSTORE_BASE_URL', 'QUERYSTORE_USERNAME', 'QUERYSTORE_PASSWORD'];
  const set = names.filter((n) => raw(env, n) !== undefined);
  if (set.length === 0) return null;
  if (set.length !== names.length) {
    throw new ConfigError(names.find((n) => raw(env, n) === undefined)!, 'QUERYSTORE_BASE_URL, QUERYSTORE_USERNAME and QUERYSTORE_PASSWORD must be set together');
  }
  return {
    baseUrl: read('QUERYSTORE_BASE_URL'),
    username: read('QUERYSTORE_USERNAME')!,
    password: read('QUERYSTORE_PASSWORD')!,
    connectTimeoutMs: read('QUERYSTORE_CONNECT_TIMEOUT_SECONDS') * 1000,
    timeoutMs: read('QUERYSTORE_TIMEOUT_SECONDS') * 1000,
    cacheEntries: read('QUERYSTORE_CACHE_ENTRIES'),
    cacheBytes: Math.round(read('QUERYSTORE_CACHE_MB') * 1024 * 1024),
  };
}

function drugSafety(read: Read): DrugSafetyConfig {
  const format = read('DRUG_SAFETY_SOURCE_FORMAT');
  return {
    format,
    datasetPath: read('DRUG_SAFETY_DATASET_PATH'),
    crossReactivityPath: read('DRUG_SAFETY_CROSS_REACTIVITY_PATH'),
    weightConceptUuid: read('DRUG_SAFETY_WEIGHT_CONCEPT_UUID'),
    weightMaxAgeDays: read('DRUG_SAFETY_WEIGHT_MAX_AGE_DAYS'),
    minInteractionSeverity: read('DRUG_SAFETY_MIN_INTERACTION_SEVERITY'),
  };
}

/** LLM_BACKEND and LLM_BASE_URL together: `auto` is the router exactly when a router URL is given. */
function backend(env: Env, read: Read): Pick<Config, 'llmBackend' | 'llmBaseUrl'> {
  const setting = read('LLM_BACKEND');
  const hasUrl = raw(env, 'LLM_BASE_URL') !== undefined;
  if (setting === 'embedded' || (setting === 'auto' && !hasUrl)) return { llmBackend: 'embedded', llmBaseUrl: '' };
  return { llmBackend: 'router', llmBaseUrl: read('LLM_BASE_URL') };
}

/** LLM_BACKENDS read whole (file, entries, the variables its api_key_env entries name), or null when unset. */
function backendMap(env: Env, read: Read, single: Pick<Config, 'llmBackend' | 'llmBaseUrl'>): BackendMapConfig | null {
  const file = read('LLM_BACKENDS');
  if (file === null) return null;
  return loadBackendMap(file, env, {
    ...single,
    explicitBackend: read('LLM_BACKEND') !== 'auto' || raw(env, 'LLM_BASE_URL') !== undefined,
    llmApiKey: read('LLM_API_KEY'),
    maxConcurrency: read('ROUTER_MAX_CONCURRENCY'),
    maxQueue: read('ROUTER_MAX_QUEUE'),
  });
}

function embedded(read: Read): EmbeddedConfig {
  const prefixReuse = read('EMBEDDED_PREFIX_REUSE');
  return {
    modelsDir: read('MODELS_DIR'),
    // One core is left to the hub itself (the default): engine threads that spin on every core starve it (issue 13's figures).
    threads: read('EMBEDDED_THREADS'),
    maxLoadedModels: read('EMBEDDED_MAX_LOADED_MODELS'),
    prefixReuse,
  };
}

/** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else {OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces (the OTLP spec's rule); neither: off. */
function telemetry(read: Read): TelemetryConfig | null {
  const base = read('OTEL_EXPORTER_OTLP_ENDPOINT');
  const tracesUrl = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? (base === null ? null : `${base}/v1/traces`);
  // Read even when off, so a malformed value stops start-up instead of waiting for the day an endpoint is set.
  const settings = { headers: read('OTEL_EXPORTER_OTLP_HEADERS'), serviceName: read('OTEL_SERVICE_NAME'), timeoutMs: read('OTEL_EXPORTER_OTLP_TIMEOUT') };
  return tracesUrl === null ? null : { tracesUrl, ...settings };
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
  const ctx: ReadContext = { env, root };
  const read: Read = (name) => readVariable(ctx, name);
  const logLevel = read('LOG_LEVEL');
  const host = read('HOST');
  const single = backend(env, read);
  return {
    port: read('PORT'),
    host,
    ...single,
    embedded: embedded(read),
    llmApiKey: read('LLM_API_KEY'),
    llmBackends: backendMap(env, read, single),
    llmTemperature: read('LLM_TEMPERATURE'),
    llmMaxTokens: read('LLM_MAX_TOKENS'),
    llmProvider: read('LLM_PROVIDER'),
    sseHeartbeatSeconds: Math.max(0.1, read('HUB_SSE_HEARTBEAT_SECONDS')),
    routerMaxConcurrency: read('ROUTER_MAX_CONCURRENCY'),
    routerMaxQueue: read('ROUTER_MAX_QUEUE'),
    routerConnectTimeoutMs: read('ROUTER_CONNECT_TIMEOUT_SECONDS') * 1000,
    routerIdleTimeoutMs: read('ROUTER_IDLE_TIMEOUT_SECONDS') * 1000,
    routerDiscoveryTimeoutMs: read('ROUTER_DISCOVERY_TIMEOUT_SECONDS') * 1000,
    // Bounded so a deadline always fits a timer (setTimeout holds at most ~24.8 days).
    catalystMaxRequestTimeoutSeconds: Math.min(read('CATALYST_MAX_REQUEST_TIMEOUT_SECONDS'), 2_000_000),
    maxBodyBytes: read('HUB_MAX_BODY_BYTES'),
    maxChartRecords: read('HUB_MAX_CHART_RECORDS'),
    apiKeyHashes: read('HUB_API_KEYS'),
    traceDir: read('TEAM_TRACE_DIR'),
    traceFlushMs: read('HUB_TRACE_FLUSH_MS'),
    anchor: read('HUB_ANCHOR'),
    timezone: read('HUB_TIMEZONE'),
    logLevel,
    buildRevision: read('HUB_BUILD_REVISION'),
    profilesPath: read('HUB_PROFILES_PATH'),
    promptsDir: read('HUB_PROMPTS_DIR'),
    tokenizerJson: read('HUB_TOKENIZER_JSON'),
    tokenizerModels: read('HUB_TOKENIZER_MODELS'),
    fitProof: read('HUB_FIT_PROOF'),
    synthRepeatPenalty: read('SYNTH_REPEAT_PENALTY'),
    synthDryMultiplier: read('SYNTH_DRY_MULTIPLIER'),
    orchestratorDryMultiplier: read('ORCHESTRATOR_DRY_MULTIPLIER'),
    expertDryMultiplier: read('EXPERT_DRY_MULTIPLIER'),
    drainSeconds: read('HUB_DRAIN_SECONDS'),
    querystore: querystore(env, read),
    drugSafety: drugSafety(read),
    knowledge: knowledgeSettings(env, root),
    knowledgeSource: knowledgeSourceSettings(env),
    telemetry: telemetry(read),
  };
}
