/**
 * The knowledge engine: `createKnowledgeService(config, deps)` opens the store and the embedder, loads the
 * configured content, reads the client keys and returns the express router of the Locus-compatible routes
 * (behind their own lsk_ auth, built on first read) and `close()`. The hub reaches it through its door
 * (`./index.ts`), which opens it only when its routes can serve a caller or its in-process knowledge-base
 * source needs it; `server/knowledge/main.ts` serves the routes alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import type express from 'express';
import type { Logger } from '../logger';
import type { RouterClient } from '../llm';
import { createEmbedder, type ClosableEmbedder } from './embedder';
import { knowledgeClients, type KnowledgeClient } from './http/auth';
import { loadContent, type LoadReport } from './loader';
import type { KnowledgeModel, PipelineDeps } from './pipeline/types';
import type { KnowledgeConfig } from '../config';
import { createKnowledgeStore } from './store';
import type { KnowledgeStore } from './store/port';

export type { KnowledgeConfig } from '../config';

export interface KnowledgeServiceDeps {
  logger: Logger;
  maxBodyBytes: number;
  /** The daily quota's clock (tests). */
  clock?: () => Date;
  /** The hub's router: with KNOWLEDGE_JUDGE_MODEL, the judge of `judge_enabled` requests (absent: the proxy). */
  router?: RouterClient | null;
  /** Clients already read from the config (the hub's on-demand door reads them at start-up). */
  clients?: readonly KnowledgeClient[];
  /** An already-open store / embedder (tests); otherwise both are created from the config and owned here. */
  store?: KnowledgeStore;
  embedder?: ClosableEmbedder;
}

export interface KnowledgeService {
  /** The routes; built (and the MCP SDK behind them loaded) on first read: the in-process source never reads it. */
  readonly router: express.Router;
  store: KnowledgeStore;
  pipeline: PipelineDeps;
  clients: readonly KnowledgeClient[];
  /** What start-up loaded (null when there was no content to load). */
  loaded: LoadReport | null;
  close(): Promise<void>;
}

/** A judge model through the hub's router (its slot semaphore and client-abort handling apply). */
export function routerModel(router: RouterClient, id: string): KnowledgeModel {
  return {
    id,
    async complete(messages, signal) {
      const r = await router.chat({ model: id, messages, temperature: 0, max_tokens: 200 }, { signal });
      return { content: r.content, tokensIn: r.usage.prompt_tokens, tokensOut: r.usage.completion_tokens };
    },
  };
}

export async function createKnowledgeService(config: KnowledgeConfig, deps: KnowledgeServiceDeps): Promise<KnowledgeService> {
  // Keys first: a bad key file stops start-up before any store is opened.
  const clients = deps.clients ?? knowledgeClients(config);
  const embedder = deps.embedder ?? createEmbedder(config.embedder);
  const ownsEmbedder = !deps.embedder;
  let store: KnowledgeStore;
  try {
    store = deps.store ?? (await createKnowledgeStore(config.store, { embedder: { id: embedder.id, dimension: embedder.dimension } }));
  } catch (err) {
    if (ownsEmbedder) await embedder.close();
    throw err;
  }
  const ownsStore = !deps.store;
  const close = async () => {
    if (ownsStore) await store.close();
    if (ownsEmbedder) await embedder.close();
  };
  let loaded: LoadReport | null = null;
  // The bundled demo default may be absent (a checkout without it): said once here, never fatal.
  const missing = config.contentIsDefault ? config.contentPaths.filter((p) => !fs.existsSync(p)) : [];
  if (missing.length) deps.logger.warn({ missing: missing.map((p) => path.basename(p)) }, 'bundled demo knowledge base not found: the knowledge store starts without it (set KNOWLEDGE_CONTENT)');
  const contentPaths = config.contentPaths.filter((p) => !missing.includes(p));
  try {
    if (contentPaths.length) loaded = await loadContent(store, embedder, contentPaths);
  } catch (err) {
    await close();
    throw err;
  }
  if (loaded) deps.logger.info({ changed: loaded.changed, pruned: loaded.pruned, ...loaded.loaded }, 'knowledge content loaded');
  if (config.judgeModel && !deps.router) deps.logger.warn('KNOWLEDGE_JUDGE_MODEL is set but no router is available here: the proxy judge runs');
  const model = config.judgeModel && deps.router ? routerModel(deps.router, config.judgeModel) : null;
  const pipeline: PipelineDeps = { store, embedder, policy: { allowUnreviewed: config.allowUnreviewed, model } };
  let router: express.Router | undefined;
  return {
    get router() {
      if (!router) {
        // Loaded here, not at the top: the routes bring the MCP SDK and zod (~30 MB resident) that a hub
        // using only its knowledge-base source never needs.
        const { knowledgeRouter } = require('./http/routes') as typeof import('./http/routes');
        router = knowledgeRouter({ pipeline, clients, open: config.auth === 'off', clock: deps.clock, logger: deps.logger, maxBodyBytes: deps.maxBodyBytes });
      }
      return router;
    },
    store,
    pipeline,
    clients,
    loaded,
    close,
  };
}
