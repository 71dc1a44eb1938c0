/**
 * The embedded llama.cpp engine's one door: MODELS_DIR read once, models loaded on first use, the
 * router-client interface answered in process (decision 25).
 */
import { EmbeddedClient } from './client';
import { noModelAdvice, readModelCatalog } from './manifest';
import { ModelRegistry } from './registry';
import type { BackendStatus } from '../backend-status';

export interface EmbeddedEngineOptions {
  modelsDir: string;
  threads: number;
  maxLoadedModels: number;
  maxConcurrency: number;
  maxQueue: number;
  prefixReuse: boolean;
}

export interface EmbeddedEngine {
  client: EmbeddedClient;
  status(wanted?: readonly string[]): BackendStatus;
}

export function createEmbeddedEngine(opts: EmbeddedEngineOptions): EmbeddedEngine {
  const catalog = readModelCatalog(opts.modelsDir, { threads: opts.threads });
  const registry = new ModelRegistry(catalog, { maxLoaded: opts.maxLoadedModels, sequences: opts.maxConcurrency });
  const client = new EmbeddedClient(registry, { maxConcurrency: opts.maxConcurrency, maxQueue: opts.maxQueue, reusePrefix: opts.prefixReuse });
  return {
    client,
    status(wanted = []): BackendStatus {
      const models = registry.states().map((s) => ({
        id: s.spec.id,
        file: s.spec.file,
        status: s.status,
        ...(s.reason ? { reason: s.reason } : {}),
        ...(s.loaded ? { n_ctx: s.loaded.nCtx, busy_sequences: s.loaded.busySequences(), generated_tokens: s.loaded.generatedTokens } : {}),
      }));
      const servable = models.filter((m) => m.status !== 'failed').length;
      const notes = [...catalog.problems];
      if (servable === 0) notes.push(noModelAdvice(catalog.dir));
      const missing = wanted.flatMap((id) => registry.missingModel(id) ?? []);
      return { type: 'embedded', ready: servable > 0, models_dir: catalog.dir, models, ...(missing.length ? { missing_models: missing } : {}), ...(notes.length ? { notes } : {}) };
    },
  };
}
