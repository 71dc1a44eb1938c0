/**
 * The knowledge store port (knowledge-layer.md §6.2): the narrow interface the retrieval pipeline talks to,
 * the same for every engine (SQLite embedded default, PostgreSQL + pgvector scale-out). One contract test
 * suite runs against every adapter. Reads are the pipeline's; writes are the content loader's.
 */

export interface Source {
  source_id: number;
  name: string;
  org: string;
}

export interface DocumentNode {
  doc_id: string;
  title: string;
  url: string | null;
  year: number | null;
  reco_id: string | null;
  source_id: number;
  summary: string | null;
  license: string | null;
  lang: string;
}

export interface SectionNode {
  id: string;
  doc_id: string;
  titles: string[];
  pages: string[];
  summary: string | null;
}

export interface ChunkNode {
  chunk_id: string;
  section_id: string;
  text: string;
  page: string | null;
}

export interface Mku {
  /** `mku_<doc_id>_<first 12 hex of sha256(NFC verbatim)>`. */
  id: string;
  /** The exact source quote: the only citable unit. */
  verbatim: string;
  criteria: string;
  directive: string;
  mku_class: string | null;
  population: string[];
  safety_critical: boolean;
  /** Passed human review (the review gate admits only these unless `include_unreviewed`). */
  reviewed: boolean;
  evidence_grade: string | null;
  strength: string | null;
  lang: string;
  /** sha256 of the MKU's content as loaded (idempotent re-loads). */
  content_hash: string;
  /** The chunk the verbatim comes from (FROM_CHUNK). */
  chunk_id: string;
}

export type ConceptKind = 'drug' | 'condition' | 'population' | 'allergy' | 'procedure' | 'other';

export interface Concept {
  id: string;
  label: string;
  /** 'local' | 'MeSH' | 'ATC' | … */
  source: string;
  synonyms: string[];
  kind: ConceptKind;
}

export type EdgeRel = 'TRIGGERS' | 'RELATED' | 'BROADER' | 'CROSS_REF';
export type CrossRefStance = 'AGREE' | 'DISAGREE' | 'PARTIAL' | 'LINEAGE';

export interface Edge {
  src: string;
  rel: EdgeRel;
  dst: string;
  /** TRIGGERS: `{role: 'criteria'|'directive', weight}`; CROSS_REF: `{stance, note?}`. */
  props: Record<string, unknown>;
}

/** Which retrieval route surfaced an MKU. */
export type MkuPath = 'R1_concept' | 'R1_vector' | 'R2' | 'safety' | 'lexical';

export interface ConceptHit {
  concept: Concept;
  /** Higher is stronger: lexical (FTS on label and synonyms) and/or vector similarity, 0–1. */
  score: number;
  via: Array<'lexical' | 'vector'>;
}

export interface MkuHit {
  mku: Mku;
  /** The route's own score, higher is stronger (cosine for vector, hop-discounted weight for graph, bm25-derived for lexical). */
  score: number;
  path: MkuPath;
  /** Graph routes: the concept ids the MKU was reached from, and the hop count (0 = direct TRIGGERS). */
  concepts?: string[];
  hops?: number;
}

export interface ChunkHit {
  chunk: ChunkNode;
  /** Cosine similarity. */
  score: number;
}

/** The deterministic FROM_CHUNK join: MKU → chunk → section → document → source. */
export interface Provenance {
  doc_id: string;
  doc_title: string;
  doc_url: string | null;
  reco_id: string | null;
  year: number | null;
  license: string | null;
  /** The document's `Source.source_id` (what `/v1/answer`'s `source_ids` allow-list filters on). */
  source_id: number | null;
  source_name: string;
  source_org: string;
  section_titles: string[];
  pages: string[];
  /** Context only: never cited. */
  section_summaries: string[];
  doc_summary: string | null;
  /** Summaries were missing: enrichment fell back to the verbatim only. */
  degraded: boolean;
}

export interface CrossRef {
  from_id: string;
  to_id: string;
  /** LINEAGE is never returned by `crossRefs`. */
  stance: Exclude<CrossRefStance, 'LINEAGE'>;
  note: string | null;
  hops: number;
}

/** What an index was built with: checked at query time (a mismatch is a clear start-up error). */
export interface IndexInfo {
  embedder_id: string;
  dimension: number;
}

export interface StoreCounts {
  sources: number;
  documents: number;
  sections: number;
  chunks: number;
  mkus: number;
  concepts: number;
  edges: number;
}

/** One batch of content for the loader, already validated; every write is an upsert keyed by id. */
export interface ContentBatch {
  sources?: Source[];
  documents?: DocumentNode[];
  sections?: SectionNode[];
  chunks?: Array<ChunkNode & { embedding: Float32Array }>;
  mkus?: Array<Mku & { ctx_embedding: Float32Array }>;
  concepts?: Array<Concept & { embedding: Float32Array }>;
  edges?: Edge[];
}

export interface KnowledgeStore {
  readonly engine: 'sqlite' | 'postgres';

  // Reads (the pipeline's, §6.2).
  searchConcepts(text: string, k: number, vec?: Float32Array): Promise<ConceptHit[]>;
  /** MKUs TRIGGERS-reachable from the concepts, following RELATED/BROADER up to `depth` hops (0 = direct). */
  mkusByConcepts(conceptIds: string[], depth: number): Promise<MkuHit[]>;
  vectorMkus(vec: Float32Array, k: number): Promise<MkuHit[]>;
  /** Full-text search over verbatims; accent- and case-insensitive ("pénicilline" = "PENICILLINE"). */
  lexicalMkus(q: string, k: number): Promise<MkuHit[]>;
  /** Safety-critical MKUs TRIGGERS-reachable from the (patient) concepts, whatever their rank. */
  safetyMkusForConcepts(conceptIds: string[]): Promise<MkuHit[]>;
  vectorChunks(vec: Float32Array, k: number): Promise<ChunkHit[]>;
  provenance(mkuIds: string[]): Promise<Map<string, Provenance>>;
  /** CROSS_REF edges from the MKUs, at most `maxHops` (≤ 3) hops; LINEAGE never returned. */
  crossRefs(mkuIds: string[], maxHops: number): Promise<CrossRef[]>;
  mkusById(ids: string[]): Promise<Map<string, Mku>>;

  /**
   * A read view for one pipeline run that may answer repeated reads of that run from memory (never across
   * runs: the patient context is in the request). Its `close()` leaves the shared store open.
   */
  forRun?(): KnowledgeStore;

  // Writes and housekeeping (the loader's).
  /** Upserts the batch in one transaction; returns how many rows actually changed (0 for an identical re-load). */
  write(batch: ContentBatch): Promise<{ changed: number }>;
  /** Removes MKUs of `docId` whose ids are not in `keep` (a changed quote changes its id). */
  pruneMkus(docId: string, keep: string[]): Promise<number>;
  indexInfo(): Promise<IndexInfo | null>;
  setIndexInfo(info: IndexInfo): Promise<void>;
  counts(): Promise<StoreCounts>;
  close(): Promise<void>;
}
