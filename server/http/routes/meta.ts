/** Operational routes: `/health`, `/`, `/openapi.json`, and the LM Studio probe path that must 404. */
import os from 'node:os';
import type { Router } from 'express';
import { HubError } from '../../errors';
import { reduceUrl } from '../../sanitize';
import { sendError } from '../errors';

export function mountMeta(router: Router, deps: { startedAt: number; llmBaseUrl: string; openapi: () => unknown }): void {
  const uptime = () => Math.round((performance.now() - deps.startedAt) / 10) / 100;
  router.get('/health', (_req, res) => {
    let memory: Record<string, number> = {};
    try {
      const rss = process.memoryUsage.rss();
      memory = { process_memory_gb: Math.round((rss / 1024 ** 3) * 100) / 100, process_memory_percent: Math.round((rss / os.totalmem()) * 1000) / 10 };
    } catch {
      memory = {};
    }
    res.json({ status: 'healthy', uptime_seconds: uptime(), memory, timestamp: Date.now() / 1000 });
  });
  router.get('/', (_req, res) => {
    res.json({ status: 'Server is running', uptime_seconds: uptime(), model_backend: reduceUrl(deps.llmBaseUrl) });
  });
  router.get('/openapi.json', (_req, res) => {
    res.json(deps.openapi());
  });
  // An older ChartSearchAI generation probes LM Studio's path first; a clean 404 lets it fall back.
  router.get('/api/v1/models', (_req, res) => {
    sendError(res, new HubError('not_found', 404, 'This is not an LM Studio server; use GET /v1/models.'));
  });
}
