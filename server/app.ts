/** Builds the express app from explicit dependencies (no globals). */
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Config } from './config';
import { HubError } from './errors';
import type { Logger } from './logger';
import type { RouterClient } from './llm/types';
import type { Catalog } from './profiles/catalog';
import type { SourceRegistry } from './context/registry';
import type { LocalTokenizer } from './llm/tokens';
import type { FitBounds } from './llm/fit-bound';
import type { BackendStatus } from './llm/backend-status';
import { reduceUrl } from './sanitize';
import type { TraceSink } from './trace/writer';
import type { HubMetrics } from './metrics';
import type { DrugSafety } from './checks/drug-safety';
import type { KnowledgeRoutesStatus } from './knowledge';
import { KNOWLEDGE_ALL_PATHS } from './knowledge/http/paths';
import { LEVELS_SCHEMA } from './profiles/levels-schema';
import { apiKeyAuth } from './http/auth';
import { sendError } from './http/errors';
import { jsonBody } from './http/body';
import { buildOpenApi } from './http/openapi';
import { chatCompletionsHandler } from './http/routes/chat-completions';
import { mountMeta } from './http/routes/meta';
import { mountAdmin } from './http/routes/admin';
import { modelsHandler } from './http/routes/models';
import { CATALYST_PATH_PREFIX, catalystRouter } from './catalyst';
import { pathGate } from './http/path-gate';
import { preconnectModelBackend } from './http/preconnect';

export interface AppDeps {
  config: Config;
  catalog: Catalog;
  router: RouterClient;
  /** The model backend as `/` and `/health` describe it (absent: a router at LLM_BASE_URL). */
  backendStatus?: () => BackendStatus;
  sources: SourceRegistry;
  localTokenizer?: LocalTokenizer | null;
  fitBounds?: FitBounds | null;
  trace: TraceSink;
  metrics?: HubMetrics | null;
  turns?: { active: number; started: number };
  /** Aborted when a shutdown's drain period is over (running turns are settled and closed). */
  shutdown?: AbortSignal;
  logger: Logger;
  version?: string;
  /** Purges the QueryStore patient ledger cache (POST /admin/querystore/cache/purge); null without QueryStore. */
  purgeQuerystoreCache?: (() => number) | null;
  /** Deterministic drug safety, loaded at start-up (absent: results say it is not configured). */
  drugSafety?: DrugSafety | null;
  /** The knowledge layer's routes (behind their own lsk_ auth, not HUB_API_KEYS) and what `/` says of them. */
  knowledge?: { routes: express.Router; status: KnowledgeRoutesStatus } | null;
}

function cors(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', '*');
  res.setHeader('Access-Control-Allow-Headers', '*');
  if (_req.method === 'OPTIONS') {
    res.status(204).end();
    return;
  }
  next();
}

function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.header('x-request-id');
  const id = given && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.setHeader('x-request-id', id);
  next();
}

function accessLog(logger: Logger, metrics: HubMetrics | null) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    res.on('close', () => {
      const seconds = (performance.now() - started) / 1000;
      metrics?.observeRequest(req.path, req.method, res.statusCode, seconds, typeof res.locals.errorCode === 'string' ? res.locals.errorCode : null);
      logger.info(
        { request_id: res.locals.requestId, method: req.method, route: req.path, profile: res.locals.profile, status: res.statusCode, duration_ms: Math.round(performance.now() - started), aborted: !res.writableFinished },
        'request',
      );
    });
    next();
  };
}

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId, cors, accessLog(deps.logger, deps.metrics ?? null));
  // Mounted before the hub's key check: knowledge clients authenticate with their own lsk_ keys.
  if (deps.knowledge) app.use(pathGate(deps.knowledge.routes, { paths: KNOWLEDGE_ALL_PATHS }));
  app.use(apiKeyAuth(deps.config.apiKeyHashes));
  app.use(preconnectModelBackend(deps.router));
  app.use(...jsonBody({ limit: deps.config.maxBodyBytes }));
  const startedAt = performance.now();
  // Built on the first request for it: most hubs never serve the document, and start-up stays lean.
  let openapi: ReturnType<typeof buildOpenApi> | undefined;
  const router = express.Router();
  mountMeta(router, { startedAt, backendStatus: deps.backendStatus ?? (() => ({ type: 'router', ready: null, url: reduceUrl(deps.config.llmBaseUrl) })), openapi: () => (openapi ??= buildOpenApi(deps.version ?? '0.1.0', LEVELS_SCHEMA)), knowledge: deps.knowledge?.status ?? null });
  const metrics = deps.metrics;
  if (metrics) {
    router.get('/metrics', async (_req: Request, res: Response) => {
      res.setHeader('Content-Type', metrics.registry.contentType);
      res.end(await metrics.registry.metrics());
    });
  }
  mountAdmin(router, { purgeQuerystoreCache: deps.purgeQuerystoreCache ?? null });
  router.get('/v1/models', modelsHandler({ router: deps.router, profiles: () => deps.catalog.profiles }));
  router.use(pathGate(catalystRouter({ catalog: deps.catalog, router: deps.router, localTokenizer: deps.localTokenizer ?? null, trace: deps.trace, providerId: deps.config.llmProvider, discoveryTimeoutMs: deps.config.routerDiscoveryTimeoutMs, maxTimeoutSeconds: deps.config.catalystMaxRequestTimeoutSeconds, shutdown: deps.shutdown, turns: deps.turns ?? { active: 0, started: 0 } }), { prefixes: [CATALYST_PATH_PREFIX] }));
  router.post('/v1/chat/completions', chatCompletionsHandler({ config: deps.config, router: deps.router, catalog: deps.catalog, sources: deps.sources, localTokenizer: deps.localTokenizer ?? null, fitBounds: deps.fitBounds ?? null, drugSafety: deps.drugSafety ?? null, trace: deps.trace, metrics: deps.metrics ?? null, shutdown: deps.shutdown, hubRevision: deps.config.buildRevision, turns: deps.turns ?? { active: 0, started: 0 } }));
  app.use(router);
  app.use((_req: Request, res: Response) => sendError(res, new HubError('not_found', 'No such route.')));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    deps.logger.error({ err: err instanceof Error ? err.name : 'unknown', request_id: res.locals.requestId }, 'unhandled error');
    sendError(res, err);
  });
  return app;
}
