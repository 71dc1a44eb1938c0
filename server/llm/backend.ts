/**
 * Backend selection (decision 25): the HTTP llama.cpp router or the embedded engine, behind the one
 * router-client interface — or, with LLM_BACKENDS, a map of model ids to several of them (backend-map/).
 * Only this module and main know which runs; nothing above server/llm/ does.
 */
import type { Config } from '../config';
import { reduceUrl } from '../sanitize';
import { createMappedBackend } from './backend-map';
import type { ModelBackend } from './backend-status';
import { createRouterClient } from './router-client';

export type { ModelBackend } from './backend-status';

export function createModelBackend(config: Config): ModelBackend {
  // LLM_BACKENDS: each model on its own backend; without it, exactly the one backend below (wire unchanged).
  if (config.llmBackends) return createMappedBackend(config, config.llmBackends);
  if (config.llmBackend === 'embedded') {
    // Loaded only on this backend: a hub in front of a router never needs the engine or its template renderer.
    const { createEmbeddedEngine } = require('./embedded') as typeof import('./embedded');
    const engine = createEmbeddedEngine({
      ...config.embedded,
      maxConcurrency: config.routerMaxConcurrency,
      maxQueue: config.routerMaxQueue,
    });
    return {
      client: engine.client,
      status: (wanted) => engine.status(wanted),
      describe: () => {
        const s = engine.status();
        return `embedded engine over ${s.models_dir} (${s.models?.length ?? 0} model${s.models?.length === 1 ? '' : 's'})`;
      },
    };
  }
  const client = createRouterClient({
    baseUrl: config.llmBaseUrl,
    apiKey: config.llmApiKey,
    maxConcurrency: config.routerMaxConcurrency,
    maxQueue: config.routerMaxQueue,
    connectTimeoutMs: config.routerConnectTimeoutMs,
    idleTimeoutMs: config.routerIdleTimeoutMs,
    discoveryTimeoutMs: config.routerDiscoveryTimeoutMs,
  });
  const url = reduceUrl(config.llmBaseUrl);
  return { client, status: () => ({ type: 'router', ready: null, url }), describe: () => `router ${new URL(config.llmBaseUrl).origin}` };
}
