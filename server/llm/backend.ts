/**
 * Backend selection (decision 25): the HTTP llama.cpp router or the embedded engine, behind the one
 * router-client interface. Only this module and main know which runs; nothing above server/llm/ does.
 */
import type { Config } from '../config';
import { reduceUrl } from '../sanitize';
import type { BackendStatus } from './backend-status';
import { createRouterClient } from './router-client';
import type { RouterClient } from './types';

export interface ModelBackend {
  client: RouterClient;
  /** `wanted`: the model ids the profiles need; the embedded engine says where each one it lacks goes. */
  status(wanted?: readonly string[]): BackendStatus;
  /** One line for the start-up message. */
  describe(): string;
}

export function createModelBackend(config: Config): ModelBackend {
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
