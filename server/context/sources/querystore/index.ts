/**
 * The QueryStore source's one door into the app: from the QUERYSTORE_* configuration, one pooled HTTP client,
 * one patient ledger cache (memory only) and the context source that joins them.
 */
import type { QuerystoreConfig } from '../../../config';
import type { HubMetrics } from '../../../metrics';
import type { ContextSource } from '../../source';
import { PatientLedgerCache } from './cache';
import { createQuerystoreClient } from './client';
import { querystoreSource } from './source';

export interface Querystore {
  source: ContextSource;
  /** Drops every cached patient ledger; returns how many there were. */
  purgeCache(): number;
  close(): Promise<void>;
}

export function createQuerystore(config: QuerystoreConfig, deps: { metrics?: HubMetrics | null } = {}): Querystore {
  const api = createQuerystoreClient({
    baseUrl: config.baseUrl,
    username: config.username,
    password: config.password,
    connectTimeoutMs: config.connectTimeoutMs,
    idleTimeoutMs: config.timeoutMs,
    requestTimeoutMs: config.timeoutMs,
  });
  const cache = new PatientLedgerCache({ maxEntries: config.cacheEntries, maxBytes: config.cacheBytes });
  deps.metrics?.watchQuerystoreCache(() => {
    const s = cache.stats();
    return { entries: s.entries, bytes: s.bytes };
  });
  return {
    source: querystoreSource({ api, cache, metrics: deps.metrics ?? null }),
    purgeCache: () => cache.purge(),
    close: () => api.close(),
  };
}
