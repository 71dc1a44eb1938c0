/**
 * `createKnowledgeStore(settings, opts)` returns an open KnowledgeStore (port.ts): SQLite (default, embedded;
 * `KNOWLEDGE_DB_PATH`, `:memory:` allowed) or PostgreSQL + pgvector (`KNOWLEDGE_DATABASE_URL`). Given an
 * embedder, it refuses an index built with another one (IndexMismatchError naming both) before any query.
 */
import type { KnowledgeStore, IndexInfo } from './port';
import { openSqliteStore, type VectorEngineChoice } from './sqlite/sqlite-store';
import { openPostgresStore } from './postgres/postgres-store';
import { poolClient } from './postgres/sql-client';

export type { KnowledgeStore } from './port';

export interface KnowledgeStoreSettings {
  engine: 'sqlite' | 'postgres';
  /** SQLite file (parent folders are created) or `:memory:`. */
  dbPath: string;
  /** Postgres connection string; required when `engine` is `postgres`. */
  databaseUrl: string | null;
}

export const DEFAULT_STORE_SETTINGS: KnowledgeStoreSettings = { engine: 'sqlite', dbPath: 'data/knowledge/knowledge.db', databaseUrl: null };

export interface OpenStoreOptions {
  /** When given, the stored index must have been built by this embedder (id and dimension). */
  embedder?: { id: string; dimension: number };
  /** SQLite only: force the vector path (tests); default `auto` = sqlite-vec when it loads. */
  sqliteVectors?: VectorEngineChoice;
}

export class IndexMismatchError extends Error {
  constructor(readonly stored: IndexInfo, readonly configured: IndexInfo) {
    super(
      `knowledge index was built with embedder '${stored.embedder_id}' (dimension ${stored.dimension}) but the configured embedder is ` +
        `'${configured.embedder_id}' (dimension ${configured.dimension}); rebuild the index (re-load the content into an empty store) or configure the original embedder`,
    );
    this.name = 'IndexMismatchError';
  }
}

/** Throws IndexMismatchError when the store's index was built by a different embedder; an empty index passes. */
export async function checkIndexInfo(store: KnowledgeStore, embedder: { id: string; dimension: number }): Promise<void> {
  const stored = await store.indexInfo();
  if (!stored) return;
  if (stored.embedder_id !== embedder.id || stored.dimension !== embedder.dimension) {
    throw new IndexMismatchError(stored, { embedder_id: embedder.id, dimension: embedder.dimension });
  }
}

export async function createKnowledgeStore(settings: Partial<KnowledgeStoreSettings> = {}, opts: OpenStoreOptions = {}): Promise<KnowledgeStore> {
  const s = { ...DEFAULT_STORE_SETTINGS, ...settings };
  let store: KnowledgeStore;
  if (s.engine === 'postgres') {
    if (!s.databaseUrl) throw new Error('KNOWLEDGE_DATABASE_URL is required with KNOWLEDGE_STORE=postgres');
    store = await openPostgresStore(await poolClient(s.databaseUrl));
  } else {
    store = openSqliteStore(s.dbPath, { vectors: opts.sqliteVectors ?? 'auto' });
  }
  if (opts.embedder) {
    try {
      await checkIndexInfo(store, opts.embedder);
    } catch (err) {
      await store.close();
      throw err;
    }
  }
  return store;
}
