/**
 * The embedder port (knowledge-layer.md §5, §6.1): `hash` (deterministic, the default, no model needed) or
 * `openai-compatible` (`/v1/embeddings` on a configured base URL). Its id and dimension are stored with the
 * index and checked at query time.
 */
export interface Embedder {
  /** Stable identity of the embedding space, e.g. `hash-v1-256` or `openai-compatible:<model>`. */
  readonly id: string;
  readonly dimension: number;
  /** One unit-length vector per text, in order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}
