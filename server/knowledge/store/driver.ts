/**
 * What an engine must provide (raw rows, no scoring). `readsOverDriver` (reads.ts) turns a driver into the
 * KnowledgeStore port, so scoring, hop discounts, LINEAGE filtering and ordering are one piece of code for
 * every engine and the contract suite sees the same answers from both.
 */
import type { ChunkNode, Concept, ContentBatch, IndexInfo, Mku, Provenance, StoreCounts } from './port';

export interface Knn {
  id: string;
  /** Cosine similarity, −1…1. */
  similarity: number;
}

/** One (seed concept → … → concept)-[:TRIGGERS]->(MKU) path end, `hops` concept-graph hops from the seed. */
export interface TriggerRow {
  seed: string;
  hops: number;
  mku_id: string;
  props: Record<string, unknown>;
}

/** A non-LINEAGE CROSS_REF edge reached `hops` edges away from the seed MKUs (1 = touching a seed). */
export interface CrossRefRow {
  src: string;
  dst: string;
  props: Record<string, unknown>;
  hops: number;
}

/** One FROM_CHUNK join row: the document and source fields of `Provenance` as stored, plus the row's section and chunk. */
export interface ProvenanceRow
  extends Pick<Provenance, 'doc_id' | 'doc_title' | 'doc_url' | 'reco_id' | 'year' | 'license' | 'doc_summary' | 'source_id' | 'source_name' | 'source_org' | 'section_titles'> {
  mku_id: string;
  section_pages: string[];
  section_summary: string | null;
  chunk_page: string | null;
}

export interface StoreDriver {
  readonly engine: 'sqlite' | 'postgres';
  /** Concepts whose label or synonyms full-text match any of the folded terms, best engine rank first. */
  conceptCandidates(terms: string[], limit: number): Promise<Concept[]>;
  /** MKUs whose verbatim full-text matches any of the folded terms, best engine rank first. */
  mkuCandidates(terms: string[], limit: number): Promise<Mku[]>;
  knn(kind: 'mku' | 'chunk' | 'concept', vec: Float32Array, k: number): Promise<Knn[]>;
  /** Walks RELATED/BROADER (both directions) up to `depth` hops from the seeds, then TRIGGERS. */
  triggerRows(seeds: string[], depth: number): Promise<TriggerRow[]>;
  crossRefRows(mkuIds: string[], maxHops: number): Promise<CrossRefRow[]>;
  mkus(ids: string[]): Promise<Mku[]>;
  concepts(ids: string[]): Promise<Concept[]>;
  chunks(ids: string[]): Promise<ChunkNode[]>;
  provenanceRows(mkuIds: string[]): Promise<ProvenanceRow[]>;
  write(batch: ContentBatch): Promise<{ changed: number }>;
  pruneMkus(docId: string, keep: string[]): Promise<number>;
  indexInfo(): Promise<IndexInfo | null>;
  setIndexInfo(info: IndexInfo): Promise<void>;
  counts(): Promise<StoreCounts>;
  close(): Promise<void>;
}
