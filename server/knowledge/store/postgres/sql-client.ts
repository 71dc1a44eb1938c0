/**
 * The tiny query interface PostgresStore is written against, so the same SQL runs on a `pg.Pool` (production,
 * `KNOWLEDGE_DATABASE_URL`) and on PGlite in process (tests; its adapter lives in test/support).
 */
import type { ClientBase, Pool } from 'pg';

export interface SqlClient {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
  /** Runs `fn` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Pick<SqlClient, 'query'>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function pgPoolClient(pool: Pool): SqlClient {
  return {
    query: async <R>(text: string, params?: unknown[]) => ({ rows: (await pool.query(text, params)).rows as R[] }),
    async transaction(fn) {
      const conn = await pool.connect();
      try {
        await conn.query('BEGIN');
        const out = await fn({ query: async <R>(text: string, params?: unknown[]) => ({ rows: (await conn.query(text, params)).rows as R[] }) });
        await conn.query('COMMIT');
        return out;
      } catch (err) {
        await conn.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        conn.release();
      }
    },
    close: () => pool.end(),
  };
}

/** Opens a pg.Pool on the URL; fails fast (and closes it) when the server cannot be reached. */
export async function poolClient(databaseUrl: string): Promise<SqlClient> {
  const { Pool: PgPool } = await import('pg');
  // No JIT: once autovacuum has given the tables statistics, the planner prices the concept-graph walk high
  // enough to have LLVM compile it, about 17 ms of compiling per walk at 50,000 MKUs (four walks per
  // /v2/context), which then runs about 30 % faster without it. PGlite has no JIT, so the tests never met it.
  // The pool waits for this before it hands a new connection out; a server that refuses the setting still serves.
  const onConnect = async (conn: ClientBase) => void (await conn.query('SET jit = off').catch(() => undefined));
  const pool = new PgPool({ connectionString: databaseUrl, max: 8, onConnect });
  // An idle connection the server drops (restart, failover, an idle timeout, pg_terminate_backend) is reported
  // as an 'error' event, which would end the process unheard. The pool has already discarded that connection
  // and the next query opens a new one; an outage that lasts shows as failed queries.
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    const u = new URL(databaseUrl);
    throw new Error(`cannot reach the knowledge database at ${u.protocol}//${u.host}${u.pathname}: ${(err as Error).message}`);
  }
  return pgPoolClient(pool);
}
