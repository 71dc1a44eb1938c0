/**
 * The knowledge layer's settings (knowledge-layer.md §6): whether its routes are mounted, its client keys,
 * the content loaded at start-up, the store and the embedder. Parsed here, reported through config.ts
 * (`Config.knowledge`, and these docs spread into its SETTINGS list). `fail` throws the caller's ConfigError,
 * which keeps this module free of an import cycle with config.ts.
 */
import path from 'node:path';
import type { EmbedderSettings } from './embedder';
import type { KnowledgeStoreSettings } from './store';

export interface KnowledgeConfig {
  /**
   * Routes mounted in the hub (decision 30: always, unless KNOWLEDGE_ENABLED=false). The engine itself
   * (store, pipeline) opens on first use, also without them when the hub's knowledge-base source runs in process.
   */
  enabled: boolean;
  /** `keys`: every request needs an lsk_ key (401 AUTH_MISSING when none is configured); `off`: open (trusted network). */
  auth: 'keys' | 'off';
  /** JSON key file of clients (`{"clients": [{slug, key_sha256, active?, daily_quota?}]}`). */
  keysFile: string | null;
  /** Bare SHA-256 digests of accepted lsk_ keys (active, no quota). */
  keyHashes: string[];
  /** JSONL files or folders loaded into the store at start-up (idempotent). */
  contentPaths: string[];
  /** The paths are the bundled demo default (KNOWLEDGE_CONTENT unset): a missing folder is reported, not fatal. */
  contentIsDefault: boolean;
  store: KnowledgeStoreSettings;
  embedder: Partial<EmbedderSettings>;
  /** `CTX_ALLOW_UNREVIEWED=true` or `ENV=test`: `opts.include_unreviewed` is honoured. */
  allowUnreviewed: boolean;
  /** Port of the stand-alone service (`npm run knowledge`). */
  port: number;
  /** Router model id of the judge used when a request sets `judge_enabled` (hub only); null = the proxy. */
  judgeModel: string | null;
}

type Env = Record<string, string | undefined>;

/** The bundled demo knowledge base (FDA label MKUs), loaded when KNOWLEDGE_CONTENT is unset. */
export const DEMO_CONTENT = 'data/knowledge/demo';
type Fail = (variable: string, message: string) => never;

export const KNOWLEDGE_SETTING_DOCS = [
  { name: 'KNOWLEDGE_STORE', default: 'sqlite', description: 'sqlite (embedded, default) | postgres (PostgreSQL + pgvector at KNOWLEDGE_DATABASE_URL).' },
  { name: 'KNOWLEDGE_DB_PATH', default: 'data/knowledge/knowledge.db', description: 'SQLite knowledge store file (:memory: for a store rebuilt from KNOWLEDGE_CONTENT at every start).' },
  { name: 'KNOWLEDGE_DATABASE_URL', default: '(unset)', description: 'PostgreSQL connection string for KNOWLEDGE_STORE=postgres (never logged).' },
  { name: 'KNOWLEDGE_EMBEDDER', default: 'hash', description: 'hash (deterministic, no model) | openai-compatible (POST {KNOWLEDGE_EMBEDDER_BASE_URL}/v1/embeddings). The index remembers its embedder; a mismatch stops start-up.' },
  { name: 'KNOWLEDGE_EMBEDDER_BASE_URL', default: '(unset)', description: 'openai-compatible embedder: base URL without /v1 (the llama.cpp router can serve an embedding model).' },
  { name: 'KNOWLEDGE_EMBEDDER_MODEL', default: '(unset)', description: 'openai-compatible embedder: model name sent with each request.' },
  { name: 'KNOWLEDGE_EMBEDDER_API_KEY', default: '(empty)', description: 'openai-compatible embedder: bearer key, sent only when non-empty.' },
  { name: 'KNOWLEDGE_EMBEDDER_DIMENSION', default: '512', description: 'Vector dimension of the embedder (hash: any size >= 8; openai-compatible: the model\'s).' },
  { name: 'KNOWLEDGE_ENABLED', default: 'true', description: 'true | false: the knowledge routes (/v2/context, /v2/retrieve, /v2/retrieve/stream, /v1/answer, /mcp) are mounted in the hub; false removes them (404, and GET / says so). auto is read as true.' },
  { name: 'KNOWLEDGE_AUTH', default: 'keys', description: 'keys | off: keys = every knowledge request needs an lsk_ client key (401 AUTH_MISSING naming KNOWLEDGE_KEYS_FILE / KNOWLEDGE_API_KEY_HASHES while none is configured); off = the routes are open, for a trusted network only.' },
  { name: 'KNOWLEDGE_KEYS_FILE', default: '(unset)', description: 'JSON file of knowledge clients: {"clients": [{"slug", "key_sha256", "active", "daily_quota"}]}; keys are lsk_<slug>_<32 hex>, stored only as SHA-256 (npm run hash-key -- <key>).' },
  { name: 'KNOWLEDGE_API_KEY_HASHES', default: '(unset)', description: 'Comma-separated SHA-256 hex digests of accepted lsk_ keys (active, no quota); adds to KNOWLEDGE_KEYS_FILE.' },
  { name: 'KNOWLEDGE_CONTENT', default: 'data/knowledge/demo', description: 'Comma-separated JSONL content files or folders loaded into the store at start-up (re-loading unchanged content changes nothing); none loads nothing. The default, the bundled demo knowledge base, is skipped with a start-up warning when its folder is missing; a path you set must exist.' },
  { name: 'CTX_ALLOW_UNREVIEWED', default: 'false', description: 'true lets /v2/context honour opts.include_unreviewed (refused with 403 otherwise).' },
  { name: 'ENV', default: '(unset)', description: 'Deployment kind; test also allows opts.include_unreviewed.' },
  { name: 'KNOWLEDGE_PORT', default: '8000', description: 'Port of the stand-alone knowledge service (npm run knowledge).' },
  { name: 'KNOWLEDGE_JUDGE_MODEL', default: '(unset: the deterministic proxy judge)', description: 'Router model id that judges sufficiency on /v2/context when a request sets opts.judge_enabled, and writes the adjudicated answer of opts.agent_enabled requests (hub-mounted routes only).' },
] as const;

/** A setting's trimmed value, undefined when unset or blank (shared with the knowledge-base source's settings). */
export function raw(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function list(env: Env, name: string): string[] {
  return (raw(env, name) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function bool(env: Env, name: string, dflt: boolean, fail: Fail): boolean {
  const v = (raw(env, name) ?? String(dflt)).toLowerCase();
  if (v !== 'true' && v !== 'false') fail(name, `expected true or false, got '${v}'`);
  return v === 'true';
}

export function int(env: Env, name: string, dflt: number, min: number, fail: Fail): number {
  const v = raw(env, name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) fail(name, `expected a whole number of at least ${min}, got '${v}'`);
  return n;
}

export function knowledgeSettings(env: Env, root: string, fail: Fail): KnowledgeConfig {
  const keyHashes = list(env, 'KNOWLEDGE_API_KEY_HASHES').map((h) => h.toLowerCase());
  for (const h of keyHashes) if (!/^[0-9a-f]{64}$/.test(h)) fail('KNOWLEDGE_API_KEY_HASHES', 'each entry must be the SHA-256 hex digest of an lsk_ key (npm run hash-key -- <key>), never the key itself');
  const keysFileSetting = raw(env, 'KNOWLEDGE_KEYS_FILE');
  const keysFile = keysFileSetting ? path.resolve(root, keysFileSetting) : null;
  const enabledSetting = (raw(env, 'KNOWLEDGE_ENABLED') ?? 'true').toLowerCase();
  // `auto` (mount when keys are configured) was the old default; routes are now always mounted (decision 30).
  if (!['auto', 'true', 'false'].includes(enabledSetting)) fail('KNOWLEDGE_ENABLED', `expected true or false, got '${enabledSetting}'`);
  const authSetting = (raw(env, 'KNOWLEDGE_AUTH') ?? 'keys').toLowerCase();
  if (authSetting !== 'keys' && authSetting !== 'off') fail('KNOWLEDGE_AUTH', `expected keys or off, got '${authSetting}'`);
  const engine = (raw(env, 'KNOWLEDGE_STORE') ?? 'sqlite').toLowerCase();
  if (engine !== 'sqlite' && engine !== 'postgres') fail('KNOWLEDGE_STORE', `expected sqlite or postgres, got '${engine}'`);
  const databaseUrl = raw(env, 'KNOWLEDGE_DATABASE_URL') ?? null;
  if (engine === 'postgres' && !databaseUrl) fail('KNOWLEDGE_DATABASE_URL', 'is required with KNOWLEDGE_STORE=postgres');
  const kind = (raw(env, 'KNOWLEDGE_EMBEDDER') ?? 'hash').toLowerCase();
  if (kind !== 'hash' && kind !== 'openai-compatible') fail('KNOWLEDGE_EMBEDDER', `expected hash or openai-compatible, got '${kind}'`);
  const embedderUrl = raw(env, 'KNOWLEDGE_EMBEDDER_BASE_URL') ?? null;
  const model = raw(env, 'KNOWLEDGE_EMBEDDER_MODEL') ?? null;
  if (kind === 'openai-compatible' && !embedderUrl) fail('KNOWLEDGE_EMBEDDER_BASE_URL', 'is required with KNOWLEDGE_EMBEDDER=openai-compatible');
  if (kind === 'openai-compatible' && !model) fail('KNOWLEDGE_EMBEDDER_MODEL', 'is required with KNOWLEDGE_EMBEDDER=openai-compatible');
  const dbPath = raw(env, 'KNOWLEDGE_DB_PATH') ?? 'data/knowledge/knowledge.db';
  const contentSetting = raw(env, 'KNOWLEDGE_CONTENT');
  return {
    enabled: enabledSetting !== 'false',
    auth: authSetting as 'keys' | 'off',
    keysFile,
    keyHashes,
    contentPaths: contentSetting === undefined ? [path.resolve(root, DEMO_CONTENT)] : contentSetting.toLowerCase() === 'none' ? [] : list(env, 'KNOWLEDGE_CONTENT').map((p) => path.resolve(root, p)),
    contentIsDefault: contentSetting === undefined,
    store: { engine: engine as 'sqlite' | 'postgres', dbPath: dbPath === ':memory:' ? dbPath : path.resolve(root, dbPath), databaseUrl },
    embedder: {
      kind: kind as 'hash' | 'openai-compatible',
      baseUrl: embedderUrl,
      model,
      apiKey: raw(env, 'KNOWLEDGE_EMBEDDER_API_KEY') ?? '',
      dimension: int(env, 'KNOWLEDGE_EMBEDDER_DIMENSION', 512, 8, fail),
    },
    allowUnreviewed: bool(env, 'CTX_ALLOW_UNREVIEWED', false, fail) || (raw(env, 'ENV') ?? '').toLowerCase() === 'test',
    port: int(env, 'KNOWLEDGE_PORT', 8000, 0, fail),
    judgeModel: raw(env, 'KNOWLEDGE_JUDGE_MODEL') ?? null,
  };
}
