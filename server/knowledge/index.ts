/**
 * The knowledge layer's door into the hub: `openHubKnowledge(config, deps)`.
 *
 * Decision 30: the routes (`/v2/context`, `/v2/retrieve`, `/v2/retrieve/stream`, `/v1/answer`, `/mcp`) are
 * mounted on every hub unless KNOWLEDGE_ENABLED=false, so a caller never meets a 404 that looks like a wrong URL:
 * - keys configured (or KNOWLEDGE_AUTH=off): the engine opens at start-up and the routes serve (a failure to
 *   open stops start-up with its reason);
 * - no key configured: every call is 401 AUTH_MISSING naming the settings to set. Nothing could pass, so the
 *   engine (store, content, MCP SDK: tens of MB) is not opened for the routes;
 * - KNOWLEDGE_ENABLED=false: the paths answer a 404 that says the routes are turned off, and `/` says so.
 * The engine also opens for the hub's in-process knowledge-base source; a failure there is reported and the
 * source is unavailable (a source never stops the hub).
 *
 * This module stays light: the engine (`./service`) is loaded only when something needs it.
 */
import express, { type RequestHandler } from 'express';
import { HubError } from '../errors';
import { sendError } from '../wire';
import type { Logger } from '../logger';
import type { RouterClient } from '../llm';
import { knowledgeClients, lskAuth, NO_KEYS_CONFIGURED } from './http/auth';
import { KNOWLEDGE_ALL_PATHS, KNOWLEDGE_REST_PATHS, MCP_PATH } from './http/paths';
import type { KnowledgeService } from './service';
import type { KnowledgeConfig } from '../config';

export type { KnowledgeConfig } from '../config';
export type { KnowledgeService } from './service';
// What the hub's app, main and /openapi.json take from the knowledge layer.
export { KNOWLEDGE_ALL_PATHS } from './http/paths';
export { createKnowledgeBaseSource, type KnowledgeBaseSource } from './context-source';
export { KNOWLEDGE_SCHEMAS } from './http/schemas';
export { knowledgeOpenApiPaths, LSK_SECURITY_SCHEME } from './http/openapi';

/** What `GET /` says of the knowledge routes. */
export interface KnowledgeRoutesStatus {
  routes: 'serving' | 'locked' | 'removed';
  paths: string[];
  auth: 'keys' | 'off';
  /** Configured lsk_ clients (their count only: never a slug or digest). */
  clients: number;
  /** Why the routes do not serve, and the setting that changes it. */
  note?: string;
}

export interface HubKnowledge {
  /** Mounted before the hub's own key check: knowledge callers use lsk_ keys. */
  routes: express.Router;
  status: KnowledgeRoutesStatus;
  /** The open engine, or null when nothing needed it (or it failed to open for the source alone). */
  service: KnowledgeService | null;
}

export interface HubKnowledgeDeps {
  logger: Logger;
  maxBodyBytes: number;
  router: RouterClient;
  /** The in-process knowledge-base source reads the engine. */
  engineForSource: boolean;
}


export const KNOWLEDGE_REMOVED = 'The knowledge routes are turned off on this hub (KNOWLEDGE_ENABLED=false); its operator removes that setting to serve them.';

/** The same paths and methods as the serving routes, each answered by `handler`. */
function answeringRouter(handler: RequestHandler): express.Router {
  const router = express.Router();
  for (const p of KNOWLEDGE_REST_PATHS) router.post(p, handler);
  router.post(MCP_PATH, handler);
  router.get(MCP_PATH, handler);
  router.delete(MCP_PATH, handler);
  return router;
}

export async function openHubKnowledge(config: KnowledgeConfig, deps: HubKnowledgeDeps): Promise<HubKnowledge> {
  // Keys first: a bad key file stops start-up before any store is opened.
  const clients = config.enabled ? knowledgeClients(config) : [];
  const serving = config.enabled && (config.auth === 'off' || clients.length > 0);
  let service: KnowledgeService | null = null;
  if (serving || deps.engineForSource) {
    try {
      const { createKnowledgeService } = await import('./service');
      service = await createKnowledgeService(config, { logger: deps.logger, maxBodyBytes: deps.maxBodyBytes, router: deps.router, clients });
    } catch (err) {
      if (serving) throw err;
      deps.logger.warn({ err: err instanceof Error ? err.message : 'unknown' }, 'knowledge engine could not open: the knowledge-base source is unavailable');
    }
  }
  const base = { paths: [...KNOWLEDGE_ALL_PATHS], auth: config.auth, clients: clients.length };
  if (!config.enabled) {
    return { routes: answeringRouter((_req, res) => sendError(res, new HubError('not_found', KNOWLEDGE_REMOVED))), status: { ...base, routes: 'removed', note: KNOWLEDGE_REMOVED }, service };
  }
  if (serving && service) return { routes: service.router, status: { ...base, routes: 'serving' }, service };
  deps.logger.warn('knowledge routes mounted without client keys: every call answers 401 AUTH_MISSING (set KNOWLEDGE_KEYS_FILE or KNOWLEDGE_API_KEY_HASHES, or KNOWLEDGE_AUTH=off on a trusted network)');
  return { routes: answeringRouter(lskAuth({ clients: [] }).identify), status: { ...base, routes: 'locked', note: NO_KEYS_CONFIGURED }, service };
}
