/** Operational routes: `/health`, `/`, `/openapi.json`, and the LM Studio probe path that must 404. */
import os from 'node:os';
import type { Router } from 'express';
import { HubError } from '../../errors';
import type { BackendStatus } from '../../llm';
import { sendError } from '../../wire';

/** Reading the resident set size costs about a millisecond here: /health reuses a reading this young. */
const MEMORY_READING_MS = 1000;

/** /health's short form: the type and readiness, and what to do when nothing can be served. */
function healthBackend(b: BackendStatus): Record<string, unknown> {
  return { type: b.type, ready: b.ready, ...(b.notes ? { notes: b.notes } : {}) };
}

export function mountMeta(router: Router, deps: { startedAt: number; backendStatus: () => BackendStatus; openapi: () => unknown; knowledge?: unknown }): void {
  const uptime = () => Math.round((performance.now() - deps.startedAt) / 10) / 100;
  let reading: { at: number; memory: Record<string, number> } | null = null;
  const memory = (): Record<string, number> => {
    const now = performance.now();
    if (reading && now - reading.at < MEMORY_READING_MS) return reading.memory;
    let figures: Record<string, number> = {};
    try {
      const rss = process.memoryUsage.rss();
      figures = { process_memory_gb: Math.round((rss / 1024 ** 3) * 100) / 100, process_memory_percent: Math.round((rss / os.totalmem()) * 1000) / 10 };
    } catch {
      figures = {};
    }
    reading = { at: now, memory: figures };
    return figures;
  };
  // Probed every few seconds by clients and load balancers (Catalyst gives it 5 s): kept cheap.
  router.get('/health', (_req, res) => {
    // The hub is healthy whatever its models: a missing model is said here, not answered with a 5xx.
    const backend = deps.backendStatus();
    res.json({ status: 'healthy', uptime_seconds: uptime(), memory: memory(), timestamp: Date.now() / 1000, model_backend: healthBackend(backend) });
  });
  router.get('/', (_req, res) => {
    const backend = deps.backendStatus();
    res.json({ status: 'Server is running', uptime_seconds: uptime(), model_backend: backend.type === 'router' ? backend.url : backend.type, backend, ...(deps.knowledge ? { knowledge: deps.knowledge } : {}) });
  });
  router.get('/openapi.json', (_req, res) => {
    res.json(deps.openapi());
  });
  // An older ChartSearchAI generation probes LM Studio's path first; a clean 404 lets it fall back.
  router.get('/api/v1/models', (_req, res) => {
    sendError(res, new HubError('not_found', 'This is not an LM Studio server; use GET /v1/models.'));
  });
}
