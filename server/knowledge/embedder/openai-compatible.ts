/**
 * The `openai-compatible` embedder: `POST {base}/v1/embeddings` (the OpenAI wire, which the llama.cpp router
 * speaks when it serves an embedding model). One keep-alive undici Pool, batches of `batchSize` inputs, a
 * per-call deadline, and errors that name the endpoint (scheme://host/path only) and what was wrong.
 */
import { Pool } from 'undici';
import { trimEndChars } from '../../text-scan';
import type { Embedder } from './port';

export interface OpenAiEmbedderOptions {
  /** Base URL without `/v1`, e.g. `http://localhost:8077`. */
  baseUrl: string;
  model: string;
  dimension: number;
  apiKey?: string;
  /** Deadline of one batch request (connect + headers + body). */
  timeoutMs: number;
  batchSize: number;
}

export class EmbedderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbedderError';
  }
}

interface EmbeddingsBody {
  data?: Array<{ index?: number; embedding?: unknown }>;
}

export function createOpenAiEmbedder(opts: OpenAiEmbedderOptions): Embedder & { close(): Promise<void> } {
  const base = new URL(opts.baseUrl);
  const prefix = trimEndChars(base.pathname, '/');
  const where = `${base.protocol}//${base.host}${prefix}/v1/embeddings`;
  const pool = new Pool(base.origin, { connections: 4, connectTimeout: opts.timeoutMs, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs });

  async function embedBatch(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const deadline = AbortSignal.timeout(opts.timeoutMs);
    const joined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let status: number;
    let text: string;
    try {
      const res = await pool.request({
        method: 'POST',
        path: `${prefix}/v1/embeddings`,
        headers: { 'content-type': 'application/json', ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) },
        body: JSON.stringify({ model: opts.model, input: texts, encoding_format: 'float' }),
        signal: joined,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      if (signal?.aborted) throw new EmbedderError(`embedding request to ${where} was cancelled`);
      if (deadline.aborted) throw new EmbedderError(`embedding request to ${where} did not answer within ${opts.timeoutMs} ms`);
      throw new EmbedderError(`cannot reach the embedder at ${where} (${(err as { code?: string }).code ?? (err as Error).message})`);
    }
    if (status < 200 || status >= 300) throw new EmbedderError(`embedder at ${where} answered HTTP ${status}: ${text.slice(0, 200)}`);
    return parseEmbeddings(text, texts.length, opts.dimension, where);
  }

  return {
    id: `openai-compatible:${opts.model}`,
    dimension: opts.dimension,
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += opts.batchSize) out.push(...(await embedBatch(texts.slice(i, i + opts.batchSize), signal)));
      return out;
    },
    close: () => pool.close(),
  };
}

/** Checks the body item by item: one vector per input, the configured dimension, finite numbers; unit-normalises. */
export function parseEmbeddings(text: string, expected: number, dimension: number, where: string): Float32Array[] {
  let body: EmbeddingsBody;
  try {
    body = JSON.parse(text) as EmbeddingsBody;
  } catch {
    throw new EmbedderError(`embedder at ${where} returned a body that is not JSON`);
  }
  if (!Array.isArray(body.data) || body.data.length !== expected) {
    throw new EmbedderError(`embedder at ${where} returned ${Array.isArray(body.data) ? body.data.length : 'no'} embeddings for ${expected} inputs`);
  }
  const out = new Array<Float32Array>(expected);
  body.data.forEach((item, pos) => {
    const index = typeof item.index === 'number' ? item.index : pos; // the wire orders by `index`
    const emb = item.embedding;
    if (!Array.isArray(emb) || !emb.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new EmbedderError(`embedder at ${where} returned a non-numeric embedding at index ${index}`);
    }
    if (emb.length !== dimension) {
      throw new EmbedderError(`embedder at ${where} returned ${emb.length}-dimensional vectors but KNOWLEDGE_EMBEDDER_DIMENSION is ${dimension}`);
    }
    if (index < 0 || index >= expected || out[index]) throw new EmbedderError(`embedder at ${where} returned a bad or repeated index ${index}`);
    out[index] = unit(Float32Array.from(emb as number[]));
  });
  return out;
}

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  if (n > 0) {
    const inv = 1 / Math.sqrt(n);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
  }
  return v;
}
