/**
 * Knowledge stores for tests (and benchmarks): an in-memory SQLite store (sqlite-vec or brute-force vectors),
 * a PostgresStore over PGlite + pgvector + unaccent, through the same SqlClient interface the production
 * pg.Pool adapter implements (PGlite runs in a worker thread of this process: pglite-worker.js says why), and
 * a PostgresStore on a real PostgreSQL server, opened the way production opens it (a throw-away cluster:
 * postgres-cluster.ts). All return the KnowledgeStore port; `close()` releases everything.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { KnowledgeStore } from '../../server/knowledge/store/port';
import { openSqliteStore, type SqliteKnowledgeStore, type VectorEngineChoice } from '../../server/knowledge/store/sqlite/sqlite-store';
import { openPostgresStore } from '../../server/knowledge/store/postgres/postgres-store';
import type { SqlClient } from '../../server/knowledge/store/postgres/sql-client';
import { createKnowledgeStore } from '../../server/knowledge/store';
import { openTestDatabase, type TestDatabase } from './postgres-cluster';

export function openMemorySqliteStore(vectors: VectorEngineChoice = 'auto'): SqliteKnowledgeStore {
  return openSqliteStore(':memory:', { vectors });
}

type Reply = { id: number; rows?: unknown[]; error?: { message: string; code?: string } };

/**
 * A SqlClient over the PGlite worker. PGlite is one connection, so a transaction holds a lock that every other
 * query waits for (the way a pooled connection would be checked out).
 */
export async function pgliteClient(): Promise<SqlClient> {
  const worker = new Worker(path.join(__dirname, 'pglite-worker.js'));
  await new Promise<void>((resolve, reject) => {
    worker.once('message', (m: { ready: boolean; error?: { message: string } }) => (m.ready ? resolve() : reject(new Error(`PGlite did not start: ${m.error?.message}`))));
    worker.once('error', reject);
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (e: Error) => void }>();
  worker.on('message', (m: Reply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error) p.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
    else p.resolve(m.rows ?? []);
  });
  const send = (msg: object) => new Promise<unknown[]>((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, ...msg });
  });
  const raw = async <R>(text: string, params?: unknown[]) => ({ rows: (await send({ text, params: params ?? [] })) as R[] });

  let lock: Promise<void> = Promise.resolve();
  async function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const prev = lock;
    let release!: () => void;
    lock = new Promise<void>((r) => (release = r));
    await prev;
    try {
      return await fn();
    } finally {
      release();
    }
  }

  return {
    query: (text, params) => exclusive(() => raw(text, params)),
    transaction: (fn) => exclusive(async () => {
      await raw('BEGIN');
      try {
        const out = await fn({ query: raw });
        await raw('COMMIT');
        return out;
      } catch (err) {
        await raw('ROLLBACK').catch(() => undefined);
        throw err;
      }
    }),
    close: async () => {
      await exclusive(() => send({ close: true })).catch(() => undefined);
      await worker.terminate();
    },
  };
}

/** A fresh PGlite database behind PostgresStore. Cold start is a few seconds: share one per test file. */
export async function openPgliteStore(): Promise<KnowledgeStore> {
  const client = await pgliteClient();
  try {
    return await openPostgresStore(client);
  } catch (err) {
    await client.close();
    throw err;
  }
}

/**
 * PostgresStore on a fresh database of this process's throw-away PostgreSQL cluster, through the production
 * `pg.Pool` adapter (`KNOWLEDGE_STORE=postgres`); closing the store drops the database, and the last database
 * dropped stops the cluster. `onDatabase` is told which database it is (a benchmark reaches it directly).
 */
export async function openRealPostgresStore(onDatabase?: (db: TestDatabase) => void): Promise<KnowledgeStore> {
  const db = await openTestDatabase();
  onDatabase?.(db);
  let store: KnowledgeStore;
  try {
    store = await createKnowledgeStore({ engine: 'postgres', databaseUrl: db.url });
  } catch (err) {
    await db.drop();
    throw err;
  }
  const close = store.close.bind(store);
  return Object.assign(store, {
    close: async () => {
      try {
        await close();
      } finally {
        await db.drop();
      }
    },
  });
}
