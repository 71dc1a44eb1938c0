/**
 * The `search` tool over the `/v2/context` pipeline. That pipeline, not `/v2/retrieve`, because `search`
 * takes structured patient context and only `/v2/context` runs the safety sweep on it: a search for a
 * patient must not lose the safety-critical MKUs their facts reach.
 *
 * Mapping (documented in the README): a *unit* is a source recommendation (one document, as Locus lists
 * results) and its *chunks* are the MKU extracts retrieved from it. The pipeline runs with
 * `mku_sim_topk = min(200, limit × max_chunks_per_unit)`, `fallback_chunk_topk = limit` and the patient
 * context as `patient_ehr`; its MKUs are grouped by document in rank order (first appearance); the first
 * `limit` units are kept with at most `max_chunks_per_unit` chunks each. Safety-relevant MKUs
 * (`safety_critical`, or in `safety_items`) are never dropped by either cap.
 */
import type { ContextRequest, ContextResponse, MkuResult, PatientContext } from '../pipeline/types';
import { SEARCH_DEFAULTS } from './schemas';

export interface SearchInput {
  query: string;
  limit?: number;
  max_chunks_per_unit?: number;
  patient_ehr?: PatientContext;
}

/** `mku_sim_topk`'s published maximum. */
const MAX_DEPTH = 200;

export type SearchChunk = Omit<MkuResult, 'provenance'> & { section_titles: string[]; pages: string[] };

export interface SearchUnit {
  doc_id: string | null;
  doc_title: string | null;
  doc_url: string | null;
  year: number | null;
  source_name: string | null;
  source_org: string | null;
  chunks: SearchChunk[];
}

export interface SearchResult {
  query: string;
  units: SearchUnit[];
  safety_items: string[];
  conflicts: ContextResponse['conflicts'];
  cross_refs: ContextResponse['cross_refs'];
  fallback: ContextResponse['fallback'];
  judge: { score: number; sufficient: boolean };
}

export function searchCaps(input: SearchInput): { limit: number; perUnit: number } {
  return { limit: input.limit ?? SEARCH_DEFAULTS.limit, perUnit: input.max_chunks_per_unit ?? SEARCH_DEFAULTS.max_chunks_per_unit };
}

/** The `/v2/context` body a search runs (also what the tests send to the REST route to compare). */
export function searchContextRequest(input: SearchInput): ContextRequest {
  const { limit, perUnit } = searchCaps(input);
  return { query: input.query, patient_ehr: input.patient_ehr ?? {}, opts: { mku_sim_topk: Math.min(MAX_DEPTH, limit * perUnit), fallback_chunk_topk: limit } };
}

function toChunk(m: MkuResult): SearchChunk {
  const { provenance, ...rest } = m;
  return { ...rest, section_titles: provenance?.section_titles ?? [], pages: provenance?.pages ?? [] };
}

export function groupSearch(input: SearchInput, ctx: ContextResponse): SearchResult {
  const { limit, perUnit } = searchCaps(input);
  const safety = new Set(ctx.safety_items);
  const isSafety = (m: MkuResult) => m.safety_critical || safety.has(m.id);
  const groups = new Map<string, { unit: SearchUnit; index: number; plain: number }>();
  for (const m of ctx.mkus) {
    const p = m.provenance;
    const key = p?.doc_id ?? '';
    let g = groups.get(key);
    if (!g) {
      const unit: SearchUnit = { doc_id: p?.doc_id ?? null, doc_title: p?.doc_title ?? null, doc_url: p?.doc_url ?? null, year: p?.year ?? null, source_name: p?.source_name ?? null, source_org: p?.source_org ?? null, chunks: [] };
      groups.set(key, (g = { unit, index: groups.size, plain: 0 }));
    }
    // A unit past `limit`, or a chunk past `max_chunks_per_unit`, is kept only when safety-relevant.
    if (isSafety(m)) g.unit.chunks.push(toChunk(m));
    else if (g.index < limit && g.plain < perUnit) {
      g.plain++;
      g.unit.chunks.push(toChunk(m));
    }
  }
  return {
    query: ctx.query,
    units: [...groups.values()].map((g) => g.unit).filter((u) => u.chunks.length > 0),
    safety_items: ctx.safety_items,
    conflicts: ctx.conflicts,
    cross_refs: ctx.cross_refs,
    fallback: ctx.fallback,
    judge: { score: ctx.trace.judge_score, sufficient: ctx.trace.judge_sufficient },
  };
}
