/**
 * Stage 6, finishing (§1.3): the raw-chunk fallback (cosine over chunks, always tagged `non_adjudiqué`),
 * the deterministic FROM_CHUNK provenance join (summaries are context only; `degraded` when absent), and
 * CROSS_REF reconciliation (at most 3 hops; LINEAGE links never leave the service).
 */
import type { KnowledgeStore, Provenance } from '../store/port';
import { CROSS_REF_MAX_HOPS } from './options';
import { round } from './rank';
import type { CrossRefOut, FallbackChunk, ProvenanceOut } from './types';

export async function fallbackChunks(store: KnowledgeStore, queryVec: Float32Array, k: number): Promise<FallbackChunk[]> {
  if (k <= 0) return [];
  const hits = await store.vectorChunks(queryVec, k);
  return hits.map((h) => ({ chunk_id: h.chunk.chunk_id, text: h.chunk.text, score: round(h.score), tag: 'non_adjudiqué' as const }));
}

export function toProvenanceOut(p: Provenance): ProvenanceOut {
  return {
    doc_id: p.doc_id,
    doc_title: p.doc_title,
    doc_url: p.doc_url,
    reco_id: p.reco_id,
    year: p.year,
    source_name: p.source_name,
    source_org: p.source_org,
    section_titles: p.section_titles,
    pages: p.pages,
    section_summaries: p.section_summaries,
    doc_summary: p.doc_summary,
    // Summaries missing ⇒ verbatim-only enrichment, whatever the store said.
    degraded: p.degraded || (p.section_summaries.length === 0 && !p.doc_summary),
  };
}

export async function enrich(store: KnowledgeStore, mkuIds: string[]): Promise<Map<string, ProvenanceOut>> {
  if (mkuIds.length === 0) return new Map();
  const found = await store.provenance(mkuIds);
  return new Map([...found].map(([id, p]) => [id, toProvenanceOut(p)]));
}

export async function reconcileCrossRefs(store: KnowledgeStore, mkuIds: string[], maxHops = CROSS_REF_MAX_HOPS): Promise<CrossRefOut[]> {
  if (mkuIds.length === 0) return [];
  const refs = await store.crossRefs(mkuIds, Math.min(maxHops, CROSS_REF_MAX_HOPS));
  const seen = new Set<string>();
  const out: CrossRefOut[] = [];
  for (const r of refs) {
    // The store excludes LINEAGE; checked again here because a lineage link must never reach a client.
    if ((r.stance as string) === 'LINEAGE') continue;
    const key = `${r.from_id}\u0000${r.to_id}\u0000${r.stance}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ from_id: r.from_id, to_id: r.to_id, stance: r.stance });
  }
  return out;
}
