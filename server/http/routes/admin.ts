/**
 * Operator routes under `/admin/`, behind the same API keys as the rest (HUB_API_KEYS). Today one:
 * `POST /admin/querystore/cache/purge` drops every cached patient ledger (the next turn for each patient
 * acquires its chart afresh) — for an operator who has corrected a chart in OpenMRS or rotated QueryStore.
 */
import type { Router } from 'express';
import { HubError } from '../../errors';
import { sendError } from '../../wire';

export interface AdminDeps {
  /** Purges the QueryStore patient ledger cache; null when QueryStore is not configured. */
  purgeQuerystoreCache: (() => number) | null;
}

export function mountAdmin(router: Router, deps: AdminDeps): void {
  router.post('/admin/querystore/cache/purge', (_req, res) => {
    if (!deps.purgeQuerystoreCache) return sendError(res, new HubError('not_found', 'QueryStore is not configured on this hub (QUERYSTORE_BASE_URL).'));
    res.json({ purged_entries: deps.purgeQuerystoreCache() });
  });
}
