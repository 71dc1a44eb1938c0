/**
 * `createEmbedder(settings)` returns the configured Embedder (port.ts): `hash` (default, deterministic, no
 * model) or `openai-compatible` (`/v1/embeddings`). `close()` releases its connections (a no-op for `hash`).
 */
import { createHashEmbedder } from './hash';
import { createOpenAiEmbedder } from './openai-compatible';
import type { Embedder } from './port';

export type { Embedder } from './port';
export { EmbedderError } from './openai-compatible';

export interface EmbedderSettings {
  kind: 'hash' | 'openai-compatible';
  /** openai-compatible: base URL without `/v1`. */
  baseUrl: string | null;
  /** openai-compatible: the model name sent in the request. */
  model: string | null;
  dimension: number;
  apiKey: string;
  timeoutMs: number;
  batchSize: number;
}

export const DEFAULT_EMBEDDER_SETTINGS: EmbedderSettings = {
  kind: 'hash',
  baseUrl: null,
  model: null,
  dimension: 512,
  apiKey: '',
  timeoutMs: 30_000,
  batchSize: 64,
};

export type ClosableEmbedder = Embedder & { close(): Promise<void> };

export function createEmbedder(settings: Partial<EmbedderSettings> = {}): ClosableEmbedder {
  const s = { ...DEFAULT_EMBEDDER_SETTINGS, ...settings };
  if (s.kind === 'hash') return { ...createHashEmbedder(s.dimension), close: async () => {} };
  if (!s.baseUrl) throw new Error('KNOWLEDGE_EMBEDDER_BASE_URL is required with KNOWLEDGE_EMBEDDER=openai-compatible');
  if (!s.model) throw new Error('KNOWLEDGE_EMBEDDER_MODEL is required with KNOWLEDGE_EMBEDDER=openai-compatible');
  return createOpenAiEmbedder({ baseUrl: s.baseUrl, model: s.model, dimension: s.dimension, apiKey: s.apiKey, timeoutMs: s.timeoutMs, batchSize: s.batchSize });
}
