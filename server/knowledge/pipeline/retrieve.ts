/**
 * `/v2/retrieve` and its stream (§1.4, §1.5, §6.3): query maker → (concept+graph ‖ vector) → cross-refs →
 * answer. The hybrid blend is `score = (1 − w)·concept_score + w·vector_score` with `w = mku_weight`;
 * `via` says which path hit. There is **no judge and no safety sweep** on this endpoint (as Locus
 * documents it): clients that need safety items call `/v2/context`. Without a model the query maker keeps
 * the question as is and the answer is extractive.
 */
import type { Mku } from '../store/port';
import { extractiveAnswer } from './answer';
import { acceptConcept } from './concepts';
import { reconcileCrossRefs } from './finish';
import { CROSS_REF_MAX_HOPS, resolveRetrieveConfig } from './options';
import { byScoreThenId, round } from './rank';
import type { EmitStage, PipelineDeps, RetrieveMku, RetrieveRequest, RetrieveResponse, RetrieveVia } from './types';

interface Blend {
  mku: Mku;
  concept: number;
  vector: number;
  via: Set<'concept' | 'vector'>;
}

export function blendScore(conceptScore: number, vectorScore: number, w: number): number {
  return round((1 - w) * conceptScore + w * vectorScore);
}

function viaOf(b: Blend): RetrieveVia {
  return b.via.has('concept') && b.via.has('vector') ? 'concept+vector' : b.via.has('concept') ? 'concept' : 'vector';
}

export async function runRetrieve(deps: PipelineDeps, req: RetrieveRequest, emit: EmitStage = () => {}, signal?: AbortSignal): Promise<RetrieveResponse> {
  const cfg = resolveRetrieveConfig(req);
  const { store } = deps;
  // No model: the question is already the query; history only ever informs a model query maker.
  const reformulated = req.query.trim();
  emit('query_maker', { kind: 'passthrough', history_turns: req.history?.length ?? 0 });
  signal?.throwIfAborted();

  const [vec] = await deps.embedder.embed([reformulated], signal);
  const concepts = cfg.concept_k > 0 ? (await store.searchConcepts(reformulated, cfg.concept_k, vec)).filter(acceptConcept) : [];
  const blends = new Map<string, Blend>();
  const get = (mku: Mku) => {
    let b = blends.get(mku.id);
    if (!b) blends.set(mku.id, (b = { mku, concept: 0, vector: 0, via: new Set() }));
    return b;
  };
  if (cfg.mku_k > 0) {
    // mku_weight 0 = concepts only, 1 = vectors only.
    if (cfg.mku_weight < 1 && concepts.length) {
      const strength = new Map(concepts.map((c) => [c.concept.id, Math.min(1, c.score)]));
      for (const h of await store.mkusByConcepts([...strength.keys()], 0)) {
        const b = get(h.mku);
        const best = Math.max(0, ...(h.concepts ?? []).map((id) => strength.get(id) ?? 0));
        b.concept = Math.max(b.concept, best || Math.min(1, h.score));
        b.via.add('concept');
      }
    }
    if (cfg.mku_weight > 0) {
      for (const h of await store.vectorMkus(vec, cfg.mku_k)) {
        const b = get(h.mku);
        b.vector = Math.max(b.vector, h.score);
        b.via.add('vector');
      }
    }
  }
  signal?.throwIfAborted();
  const ranked = [...blends.values()]
    .filter((b) => b.mku.reviewed)
    .map((b) => ({ b, id: b.mku.id, score: blendScore(b.concept, b.vector, cfg.mku_weight) }))
    .sort(byScoreThenId)
    .slice(0, cfg.mku_k);
  const chunks = cfg.chunk_k > 0 ? await store.vectorChunks(vec, cfg.chunk_k) : [];

  const ids = ranked.map((r) => r.id);
  const crossRefs = cfg.use_cross_refs ? await reconcileCrossRefs(store, ids, CROSS_REF_MAX_HOPS) : [];
  // Neighbours over CROSS_REF join the list (via cross_ref) after the ranked MKUs.
  const neighbourIds = [...new Set(crossRefs.flatMap((r) => [r.from_id, r.to_id]))].filter((id) => !ids.includes(id));
  const neighbours = neighbourIds.length ? await store.mkusById(neighbourIds) : new Map<string, Mku>();
  const all = [...ranked.map((r) => ({ mku: r.b.mku, score: r.score, via: viaOf(r.b) })), ...[...neighbours.values()].filter((m) => m.reviewed).map((mku) => ({ mku, score: 0, via: 'cross_ref' as const }))];
  const provenance = all.length ? await store.provenance(all.map((a) => a.mku.id)) : new Map();
  const mkus: RetrieveMku[] = all.map(({ mku, score, via }) => {
    const p = provenance.get(mku.id);
    return {
      id: mku.id,
      verbatim: mku.verbatim,
      criteria: mku.criteria,
      directive: mku.directive,
      mku_class: mku.mku_class,
      population: mku.population,
      ...(p ? { doc_id: p.doc_id, doc_title: p.doc_title, ...(p.section_titles[0] ? { section_title: p.section_titles[0] } : {}) } : {}),
      score,
      via,
    };
  });
  emit('retrieval', { concepts: concepts.length, mkus: mkus.length, chunks: chunks.length, cross_refs: crossRefs.length, table_k: cfg.table_k, decision_tables: 0 });
  signal?.throwIfAborted();

  if (cfg.deliberate) emit('deliberation', { ran: false, reason: 'no model configured: deliberation needs one' });
  const answer = extractiveAnswer(mkus.filter((m) => m.via !== 'cross_ref').map((m) => ({ id: m.id, verbatim: m.verbatim, source: m.doc_title ?? null })));
  emit('answer', { kind: 'extractive', quoted: Math.min(3, mkus.length) });

  return {
    query: req.query,
    reformulated,
    ehr_summary: '',
    answer,
    answer_format: 'markdown',
    mkus,
    chunks: chunks.map((c) => ({ id: c.chunk.chunk_id, text: c.chunk.text, score: round(c.score) })),
    cross_refs: crossRefs.map((r) => ({ id1: r.from_id, id2: r.to_id, polarity: r.stance })),
    concepts: concepts.map((c) => ({ id: c.concept.id, label: c.concept.label })),
  };
}
