/**
 * The knowledge layer's settings (knowledge-layer.md §6): whether its routes are mounted, its client keys,
 * the content loaded at start-up, the store and the embedder. Each variable is read through its row of the
 * one table (variables.ts); the hub's `Config.knowledge` and the ingest command both take them from here.
 */
import { ConfigError, type Env, type ReadContext } from './read';
import { readVariable, type VariableName, type VariableValue } from './variables';

/** The knowledge store's settings (the shape `knowledge/store` opens). */
export interface KnowledgeStoreConfig {
  engine: 'sqlite' | 'postgres';
  /** SQLite file or `:memory:`. */
  dbPath: string;
  /** Postgres connection string; set whenever `engine` is `postgres`. */
  databaseUrl: string | null;
}

/** The embedder's settings (the part of `knowledge/embedder` settings the environment gives). */
export interface KnowledgeEmbedderConfig {
  kind: 'hash' | 'openai-compatible';
  baseUrl: string | null;
  model: string | null;
  apiKey: string;
  dimension: number;
}

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
  store: KnowledgeStoreConfig;
  embedder: KnowledgeEmbedderConfig;
  /** `CTX_ALLOW_UNREVIEWED=true` or `ENV=test`: `opts.include_unreviewed` is honoured. */
  allowUnreviewed: boolean;
  /** Port of the stand-alone service (`npm run knowledge`). */
  port: number;
  /** Router model id of the judge used when a request sets `judge_enabled` (hub only); null = the proxy. */
  judgeModel: string | null;
}

/** Reads and validates the knowledge layer's settings; throws ConfigError naming the first bad variable. */
export function knowledgeSettings(env: Env, root: string): KnowledgeConfig {
  const ctx: ReadContext = { env, root };
  const read = <K extends VariableName>(name: K): VariableValue<K> => readVariable(ctx, name);
  const keyHashes = read('KNOWLEDGE_API_KEY_HASHES');
  const keysFile = read('KNOWLEDGE_KEYS_FILE');
  // `auto` (mount when keys are configured) was the old default; routes are now always mounted (decision 30).
  const enabledSetting = read('KNOWLEDGE_ENABLED');
  const auth = read('KNOWLEDGE_AUTH');
  const engine = read('KNOWLEDGE_STORE');
  const databaseUrl = read('KNOWLEDGE_DATABASE_URL');
  if (engine === 'postgres' && !databaseUrl) throw new ConfigError('KNOWLEDGE_DATABASE_URL', 'is required with KNOWLEDGE_STORE=postgres');
  const kind = read('KNOWLEDGE_EMBEDDER');
  const embedderUrl = read('KNOWLEDGE_EMBEDDER_BASE_URL');
  const model = read('KNOWLEDGE_EMBEDDER_MODEL');
  if (kind === 'openai-compatible' && !embedderUrl) throw new ConfigError('KNOWLEDGE_EMBEDDER_BASE_URL', 'is required with KNOWLEDGE_EMBEDDER=openai-compatible');
  if (kind === 'openai-compatible' && !model) throw new ConfigError('KNOWLEDGE_EMBEDDER_MODEL', 'is required with KNOWLEDGE_EMBEDDER=openai-compatible');
  const dbPath = read('KNOWLEDGE_DB_PATH');
  const content = read('KNOWLEDGE_CONTENT');
  return {
    enabled: enabledSetting !== 'false',
    auth,
    keysFile,
    keyHashes,
    contentPaths: content.paths,
    contentIsDefault: content.isDefault,
    store: { engine, dbPath, databaseUrl },
    embedder: {
      kind,
      baseUrl: embedderUrl,
      model,
      apiKey: read('KNOWLEDGE_EMBEDDER_API_KEY'),
      dimension: read('KNOWLEDGE_EMBEDDER_DIMENSION'),
    },
    allowUnreviewed: read('CTX_ALLOW_UNREVIEWED') || read('ENV').toLowerCase() === 'test',
    port: read('KNOWLEDGE_PORT'),
    judgeModel: read('KNOWLEDGE_JUDGE_MODEL'),
  };
}
