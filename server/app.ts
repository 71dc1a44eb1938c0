/** Builds the express app from explicit dependencies (no globals): wiring only, each family through its door. */
import express from 'express';
import type { Config } from './config';
import type { Logger } from './logger';
import type { RouterClient, LocalTokenizer, FitBounds, BackendStatus } from './llm';
import { LEVELS_SCHEMA, type Catalog } from './profiles';
import type { SourceRegistry } from './context';
import { reduceUrl } from './sanitize';
import type { TraceSink } from './trace';
import type { HubMetrics } from './metrics';
import type { DrugSafety } from './checks/drug-safety';
import type { Telemetry } from './telemetry';
import { KNOWLEDGE_ALL_PATHS, type KnowledgeRoutesStatus } from './knowledge';
import { jsonBody } from './wire';
import { accessLog, apiKeyAuth, cors, notFound, unhandledError, requestId, buildOpenApi, mountMeta, mountAdmin, mountMetrics, pathGate, preconnectModelBackend } from './http';
import { chatRouter } from './chat';
import { CATALYST_PATH_PREFIX, catalystRouter } from './catalyst';
import { CONSOLE_PATH, consoleRouter } from './console';

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
  /** OpenTelemetry spans of turns and model calls (absent: off). */
  telemetry?: Telemetry;
}

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId, cors, accessLog(deps.logger, deps.metrics ?? null));
  // Mounted before the hub's key check: knowledge clients authenticate with their own lsk_ keys.
  if (deps.knowledge) app.use(pathGate(deps.knowledge.routes, { paths: KNOWLEDGE_ALL_PATHS }));
  // The console's static shell holds no data, so a browser can load it before a key is typed; its API calls carry
  // the key. Gated by path, so API requests do not walk its router.
  app.use(pathGate(consoleRouter(), { prefixes: [CONSOLE_PATH] }));
  app.use(apiKeyAuth(deps.config.apiKeyHashes));
  app.use(preconnectModelBackend(deps.router));
  app.use(...jsonBody({ limit: deps.config.maxBodyBytes }));
  const startedAt = performance.now();
  // Built on the first request for it: most hubs never serve the document, and start-up stays lean.
  let openapi: ReturnType<typeof buildOpenApi> | undefined;
  const router = express.Router();
  mountMeta(router, { startedAt, backendStatus: deps.backendStatus ?? (() => ({ type: 'router', ready: null, url: reduceUrl(deps.config.llmBaseUrl) })), openapi: () => (openapi ??= buildOpenApi(deps.version ?? '0.1.0', LEVELS_SCHEMA)), knowledge: deps.knowledge?.status ?? null });
  if (deps.metrics) mountMetrics(router, deps.metrics);
  mountAdmin(router, { purgeQuerystoreCache: deps.purgeQuerystoreCache ?? null });
  router.use(pathGate(catalystRouter({ catalog: deps.catalog, router: deps.router, localTokenizer: deps.localTokenizer ?? null, trace: deps.trace, providerId: deps.config.llmProvider, discoveryTimeoutMs: deps.config.routerDiscoveryTimeoutMs, maxTimeoutSeconds: deps.config.catalystMaxRequestTimeoutSeconds, shutdown: deps.shutdown, turns: deps.turns ?? { active: 0, started: 0 }, telemetry: deps.telemetry }), { prefixes: [CATALYST_PATH_PREFIX] }));
  // The chat family: `GET /v1/models` and `POST /v1/chat/completions` (neither lies under the Catalyst prefix).
  router.use(chatRouter({ config: deps.config, router: deps.router, catalog: deps.catalog, sources: deps.sources, localTokenizer: deps.localTokenizer ?? null, fitBounds: deps.fitBounds ?? null, drugSafety: deps.drugSafety ?? null, trace: deps.trace, metrics: deps.metrics ?? null, shutdown: deps.shutdown, hubRevision: deps.config.buildRevision, turns: deps.turns ?? { active: 0, started: 0 }, telemetry: deps.telemetry }));
  app.use(router);
  app.use(notFound);
  app.use(unhandledError(deps.logger));
  return app;
}
