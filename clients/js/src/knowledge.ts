/**
 * The knowledge layer's routes (README "Knowledge endpoints", knowledge-layer.md): `/v2/context`,
 * `/v2/retrieve` (JSON, Markdown or HTML), `/v2/retrieve/stream` (NDJSON, one line per stage, then
 * `done` or `error`) and `/v1/answer`. They take their own `lsk_` keys (`knowledgeApiKey`).
 */
import { ProtocolError } from './errors.js';

export interface PatientContext {
  sex?: string | null;
  age?: number | null;
  history?: string[] | null;
  active_problems?: string[] | null;
  allergies?: string[] | null;
  current_treatments?: string[] | null;
}

export interface ContextRequest {
  query: string;
  patient_ehr: PatientContext;
  opts?: {
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
  } | null;
}

export interface ContextMku {
  id: string;
  verbatim: string;
  criteria: string;
  directive: string;
  [key: string]: unknown;
}

export interface ContextResponse {
  query: string;
  answer?: string | null;
  mkus: ContextMku[];
  /** Ids of the safety-critical MKUs the patient's concepts reach (never dropped). */
  safety_items: string[];
  conflicts: Array<Record<string, unknown>>;
  cross_refs: Array<Record<string, unknown>>;
  fallback: Array<Record<string, unknown>>;
  trace: Record<string, unknown>;
  tokens_in: number | null;
  tokens_out: number | null;
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
  history?: Array<{ question?: string; answer_short?: string }>;
  deliberate?: boolean;
}

export interface RetrieveResponse {
  query: string;
  reformulated: string;
  ehr_summary: string;
  answer: string;
  answer_format: 'markdown';
  mkus: Array<{ id: string; verbatim: string; criteria: string; directive: string; score: number; via: 'concept' | 'vector' | 'concept+vector' | 'cross_ref'; [key: string]: unknown }>;
  chunks: Array<{ id: string; text: string; score: number; [key: string]: unknown }>;
  cross_refs: Array<{ id1: string; id2: string; polarity: 'AGREE' | 'DISAGREE' | 'PARTIAL' }>;
  concepts: Array<{ id: string; label?: string }>;
}

/** One line of `/v2/retrieve/stream`. */
export type RetrieveStreamEvent =
  | { stage: 'done'; data: RetrieveResponse }
  | { stage: 'error'; error: { code: string; message: string } }
  | { stage: string; t_ms: number; data: Record<string, unknown> };

export interface AnswerRequest {
  query: string;
  source_ids?: number[] | null;
}

export interface AnswerResponse {
  query: string;
  reformulated_question: string | null;
  answer: string;
  sources: Array<{ reco_id: number; reco_title: string; source_name: string; deep_link: string | null }>;
  steps: Array<{ tool: string; in: Record<string, unknown>; out: Record<string, unknown> }>;
  evidence: Array<{ id: string; org: string; year: string | null; title: string; page: number | null; url: string; grade: string | null; units: Array<{ text: string; type: string }> }>;
  tokens_in: number | null;
  tokens_out: number | null;
}

function parseLine(line: string): RetrieveStreamEvent {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new ProtocolError('A /v2/retrieve/stream line is not JSON');
  }
  if (!value || typeof value !== 'object' || typeof (value as { stage?: unknown }).stage !== 'string') {
    throw new ProtocolError('A /v2/retrieve/stream line is not a stage object');
  }
  return value as RetrieveStreamEvent;
}

/**
 * The NDJSON stages of a retrieve stream, up to `done` or `error`. Leaving the loop early closes the
 * connection (the hub stops the pipeline at its next stage).
 */
export async function* ndjsonStages(response: Response, controller: AbortController): AsyncGenerator<RetrieveStreamEvent> {
  if (!response.body) throw new ProtocolError('The retrieve stream has no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = buffer.split('\n');
      buffer = done ? '' : (lines.pop() ?? '');
      for (const line of lines) {
        if (line.trim() === '') continue;
        const event = parseLine(line);
        yield event;
        if (event.stage === 'done' || event.stage === 'error') return;
      }
      if (done) throw new ProtocolError('The retrieve stream ended without a done or error line');
    }
  } finally {
    controller.abort();
    reader.releaseLock();
  }
}
