/**
 * `loadContent(store, embedder, paths)` loads JSONL content (files or folders; formats in schemas.ts and the
 * README) into a KnowledgeStore and returns a LoadReport. Everything is read, validated, resolved and embedded
 * before the first write, so a bad line (ContentError naming file:line) or an embedder failure writes nothing.
 * Re-loading the same files reports `changed: 0`; an MKU whose quote changed gets a new id and the old one is
 * pruned (with its edges). The index is stamped with the embedder (id, dimension) on first load and checked on
 * every later one (IndexMismatchError).
 */
import type { Embedder } from '../embedder/port';
import { checkIndexInfo } from '../store';
import type { KnowledgeStore } from '../store/port';
import { assembleContent, type ContentPlan } from './assemble';
import { readContent } from './read-files';

export { ContentError } from './read-files';
export { mkuId } from './mku-id';

export interface LoadReport {
  /** Rows written (0 for an identical re-load) plus MKUs pruned. */
  changed: number;
  pruned: number;
  loaded: { sources: number; documents: number; sections: number; chunks: number; mkus: number; concepts: number; edges: number };
}

export interface LoadOptions {
  signal?: AbortSignal;
}

export async function loadContent(store: KnowledgeStore, embedder: Embedder, paths: string | readonly string[], opts: LoadOptions = {}): Promise<LoadReport> {
  const plan = assembleContent(readContent(typeof paths === 'string' ? [paths] : paths));
  return writePlan(store, embedder, plan, opts);
}

async function embedAll(embedder: Embedder, texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const vecs = await embedder.embed(texts, signal);
  if (vecs.length !== texts.length) throw new Error(`embedder ${embedder.id} returned ${vecs.length} vectors for ${texts.length} texts`);
  return vecs;
}

/** Embeds and writes an assembled plan (exported for tests and generated content, e.g. benchmarks). */
export async function writePlan(store: KnowledgeStore, embedder: Embedder, plan: ContentPlan, opts: LoadOptions = {}): Promise<LoadReport> {
  await checkIndexInfo(store, embedder);
  const chunkVecs = await embedAll(embedder, plan.chunks.map((c) => c.embedText), opts.signal);
  const mkuVecs = await embedAll(embedder, plan.mkus.map((m) => m.embedText), opts.signal);
  const conceptVecs = await embedAll(embedder, plan.concepts.map((c) => c.embedText), opts.signal);
  if (!(await store.indexInfo())) await store.setIndexInfo({ embedder_id: embedder.id, dimension: embedder.dimension });
  const { changed } = await store.write({
    sources: plan.sources,
    documents: plan.documents,
    sections: plan.sections,
    chunks: plan.chunks.map((c, i) => ({ ...c.node, embedding: chunkVecs[i] })),
    mkus: plan.mkus.map((m, i) => ({ ...m.node, ctx_embedding: mkuVecs[i] })),
    concepts: plan.concepts.map((c, i) => ({ ...c.node, embedding: conceptVecs[i] })),
    edges: plan.edges,
  });
  let pruned = 0;
  const keepByDoc = new Map<string, string[]>(plan.documents.map((d) => [d.doc_id, []]));
  for (const m of plan.mkus) keepByDoc.get(m.docId)?.push(m.node.id);
  for (const [docId, keep] of keepByDoc) pruned += await store.pruneMkus(docId, keep);
  return {
    changed: changed + pruned,
    pruned,
    loaded: {
      sources: plan.sources.length, documents: plan.documents.length, sections: plan.sections.length, chunks: plan.chunks.length,
      mkus: plan.mkus.length, concepts: plan.concepts.length, edges: plan.edges.length,
    },
  };
}
