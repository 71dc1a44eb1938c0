/**
 * Every knowledge store engine the contract, golden and loader tests run against. Apart from the openers
 * (knowledge-stores.ts, which benchmarks and scripts import too) because deciding whether the real PostgreSQL
 * runs may print the skip message, which only a test run should show.
 */
import type { KnowledgeStore } from '../../server/knowledge/store/port';
import { openMemorySqliteStore, openPgliteStore, openRealPostgresStore } from './knowledge-stores';
import { realPostgresRuns } from './postgres-cluster';

export type StoreFactory = {
  name: 'sqlite' | 'sqlite-brute-force' | 'postgres (PGlite)' | 'postgres (real)';
  engine: 'sqlite' | 'postgres';
  open: () => Promise<KnowledgeStore>;
};

/**
 * The real PostgreSQL is left out (with one message) only where it is missing and not required; in CI its
 * `open()` then fails naming what is missing.
 */
export const STORE_FACTORIES: StoreFactory[] = [
  { name: 'sqlite', engine: 'sqlite', open: async () => openMemorySqliteStore('sqlite-vec') },
  { name: 'sqlite-brute-force', engine: 'sqlite', open: async () => openMemorySqliteStore('brute-force') },
  { name: 'postgres (PGlite)', engine: 'postgres', open: openPgliteStore },
  ...(realPostgresRuns() ? [{ name: 'postgres (real)', engine: 'postgres', open: () => openRealPostgresStore() } as const] : []),
];
