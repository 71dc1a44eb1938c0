/**
 * The knowledge pipeline's wire types (knowledge-layer.md §1): what the four Locus-compatible endpoints
 * take and give. Declared once; the JSON Schemas in `http/schemas.ts` describe the same shapes for ajv and
 * the OpenAPI document, and the endpoint tests validate responses against those schemas.
 */
import type { KnowledgeStore, Provenance } from '../store/port';
import type { Embedder } from '../embedder/port';

export interface PatientContext {
  sex?: string | null;
  age?: number | null;
  history?: string[] | null;
  active_problems?: string[] | null;
  allergies?: string[] | null;
  current_treatments?: string[] | null;
}

export interface ContextOpts {
  include_unreviewed?: boolean | null;
  mode?: 'full' | 'fallback_only' | null;
  concept_sim_topk?: number | null;
  mku_sim_topk?: number | null;
  fallback_chunk_topk?: number | null;
  intersection_multihop_depth?: number | null;
  judge_sufficiency_cutoff?: number | null;
  judge_enabled?: boolean | null;
  agent_enabled?: boolean | null;
  w_cosine?: number | null;
  w_overlap?: number | null;
  w_intersection?: number | null;
}

export interface ContextRequest {
  query: string;
  patient_ehr: PatientContext;
  opts?: ContextOpts | null;
}

/** Routes an MKU can surface by in `/v2/context` (Locus's enum). */
export type ContextPath = 'R1_concept' | 'R1_vector' | 'R2' | 'safety';

/** Provenance on the wire (§1.3): the store's join without its licence and source id (those stay internal). */
export type ProvenanceOut = Omit<Provenance, 'license' | 'source_id'>;

export interface MkuResult {
  id: string;
  verbatim: string;
  criteria: string;
  directive: string;
  safety_critical: boolean;
  review: boolean;
  evidence_grade: string | null;
  strength: string | null;
  score: number;
  paths: ContextPath[];
  tags: string[];
  provenance?: ProvenanceOut;
}

export interface ConceptRef {
  id: string;
  label: string;
  source?: string;
}

export interface MkuConflict {
  description: string;
  patient_factor?: string;
  mku_id?: string;
}

export interface CrossRefOut {
  from_id: string;
  to_id: string;
  stance: 'AGREE' | 'DISAGREE' | 'PARTIAL';
}

export interface FallbackChunk {
  chunk_id: string;
  text: string;
  score: number;
  doc_title?: string;
  doc_url?: string;
  source_name?: string;
  section_summary?: string;
  doc_summary?: string;
  tag: 'non_adjudiqué';
}

export interface ContextTrace {
  mode: 'full' | 'fallback_only';
  include_unreviewed: boolean;
  paths_activated: Array<ContextPath | 'fallback'>;
  judge_score: number;
  judge_sufficient: boolean;
  judge_cutoff: number;
  judge_rationale?: string;
  judge_skipped: boolean;
  counts: Record<string, number>;
  query_concepts: ConceptRef[];
  patient_concepts: ConceptRef[];
  tags: string[];
  config: Record<string, unknown>;
  enrichment_degraded: boolean;
  /** One entry per pipeline stage that ran, in order (this product's addition; ids and counts only). */
  stages?: StageEvent[];
}

export interface ContextResponse {
  query: string;
  answer?: string | null;
  mkus: MkuResult[];
  safety_items: string[];
  conflicts: MkuConflict[];
  cross_refs: CrossRefOut[];
  fallback: FallbackChunk[];
  trace: ContextTrace;
  tokens_in: number | null;
  tokens_out: number | null;
}

export interface RetrieveTurn {
  question?: string;
  answer_short?: string;
}

export interface RetrieveRequest {
  query: string;
  patient_ehr?: string | null;
  concept_k?: number;
  chunk_k?: number;
  mku_k?: number;
  table_k?: number;
  mku_weight?: number;
  use_cross_refs?: boolean;
  history?: RetrieveTurn[];
  deliberate?: boolean;
}

export type RetrieveVia = 'concept' | 'vector' | 'concept+vector' | 'cross_ref';

export interface RetrieveMku {
  id: string;
  verbatim: string;
  criteria: string;
  directive: string;
  mku_class?: string | null;
  population: string[];
  doc_id?: string;
  doc_title?: string;
  section_title?: string;
  score: number;
  via: RetrieveVia;
}

export interface RetrieveChunk {
  id: string;
  text: string;
  score: number;
  doc_id?: string;
  doc_title?: string;
  section_title?: string;
}

export interface RetrieveResponse {
  query: string;
  reformulated: string;
  ehr_summary: string;
  answer: string;
  answer_format: 'markdown';
  mkus: RetrieveMku[];
  chunks: RetrieveChunk[];
  cross_refs: Array<{ id1: string; id2: string; polarity: 'AGREE' | 'DISAGREE' | 'PARTIAL' }>;
  concepts: Array<{ id: string; label?: string }>;
}

export interface AnswerRequest {
  query: string;
  source_ids?: number[] | null;
}

export interface AnswerSource {
  reco_id: number;
  reco_title: string;
  source_name: string;
  deep_link: string | null;
}

export interface EvidenceSource {
  id: string;
  org: string;
  year: string | null;
  title: string;
  page: number | null;
  url: string;
  grade: string | null;
  units: Array<{ text: string; type: string }>;
}

export interface AnswerResponse {
  query: string;
  reformulated_question: string | null;
  answer: string;
  sources: AnswerSource[];
  steps: Array<{ tool: string; in: Record<string, unknown>; out: Record<string, unknown> }>;
  evidence: EvidenceSource[];
  tokens_in: number | null;
  tokens_out: number | null;
}

/** One pipeline stage's report: a trace entry and, on the stream, one NDJSON line. */
export interface StageEvent {
  stage: string;
  t_ms: number;
  data: Record<string, unknown>;
}

export type EmitStage = (stage: string, data: Record<string, unknown>) => void;

/** What the deployment allows and which optional parts exist (no model by default). */
export interface PipelinePolicy {
  /** `CTX_ALLOW_UNREVIEWED=true` or `ENV=test`. */
  allowUnreviewed: boolean;
  /** The model the judge uses when `judge_enabled` (through the hub's router); null = the deterministic proxy. */
  model: KnowledgeModel | null;
}

/** One chat completion through the router (the hub's slot semaphore and abort handling apply). */
export interface KnowledgeModel {
  /** Router model id, reported in `trace.config.judge_model`. */
  id: string;
  complete(messages: Array<{ role: string; content: string }>, signal?: AbortSignal): Promise<{ content: string; tokensIn: number; tokensOut: number }>;
}

export interface PipelineDeps {
  store: KnowledgeStore;
  embedder: Embedder;
  policy: PipelinePolicy;
  /** Monotonic milliseconds (stage `t_ms`); injected so tests need no wall clock. */
  now?: () => number;
}
