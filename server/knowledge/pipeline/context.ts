/**
 * `/v2/context` (§1.3, §6.3): concept mapping → R1 ∪ R2 → rank + review gate → safety sweep → judge →
 * fallback → enrichment → cross-refs → optional (extractive) answer. Each stage reports one event through
 * `emit`; the response's `trace` is the evaluation surface and `trace.config` says what actually ran.
 */
import type { MkuHit } from '../store/port';
import { sourceLabel } from './answer';
import { adjudicate } from './model-answer';
import { mapConcepts, toConceptRef } from './concepts';
import { enrich, fallbackChunks, reconcileCrossRefs } from './finish';
import { proxyJudge } from './judge';
import { modelJudge } from './model-judge';
import { CROSS_REF_MAX_HOPS, resolveContextConfig } from './options';
import { overlapOf, rankCandidates, rankScore, reviewGate, round } from './rank';
import { retrieveCandidates, type Candidate } from './retrieval';
import { safetyConflicts, safetySweep } from './safety';
import type { ContextPath, ContextRequest, ContextResponse, EmitStage, MkuResult, PipelineDeps, StageEvent } from './types';

interface Retained {
  mku: Candidate['mku'];
  score: number;
  paths: Set<ContextPath>;
  candidate: Candidate | null;
}

function toResult(r: Retained, safetyIds: Set<string>): MkuResult {
  const tags: string[] = [];
  if (r.mku.safety_critical || safetyIds.has(r.mku.id)) tags.push('safety-relevant');
  if (!r.mku.reviewed) tags.push('unreviewed');
  const order: ContextPath[] = ['R1_concept', 'R1_vector', 'R2', 'safety'];
  return {
    id: r.mku.id,
    verbatim: r.mku.verbatim,
    criteria: r.mku.criteria,
    directive: r.mku.directive,
    safety_critical: r.mku.safety_critical,
    review: r.mku.reviewed,
    evidence_grade: r.mku.evidence_grade,
    strength: r.mku.strength,
    score: r.score,
    paths: order.filter((p) => r.paths.has(p)),
    tags,
  };
}

export async function runContext(deps: PipelineDeps, req: ContextRequest, onStage: EmitStage = () => {}, signal?: AbortSignal): Promise<ContextResponse> {
  const cfg = resolveContextConfig(req.opts, deps.policy);
  // Every stage event is also kept in `trace.stages` (ids and counts only: no query or patient text).
  const now = deps.now ?? (() => performance.now());
  const started = now();
  const stages: StageEvent[] = [];
  const emit: EmitStage = (stage, data) => {
    stages.push({ stage, t_ms: Math.round((now() - started) * 1000) / 1000, data });
    onStage(stage, data);
  };
  // One run's reads share a memo: its walks, MKU rows and provenance repeat across stages.
  const store = deps.store.forRun?.() ?? deps.store;
  const fallbackOnly = cfg.mode === 'fallback_only';

  const concepts = await mapConcepts({ store, embedder: deps.embedder }, req.query, req.patient_ehr ?? {}, cfg.concept_sim_topk, signal);
  const queryIds = concepts.query.map((h) => h.concept.id);
  const patientIds = concepts.patient.map((h) => h.concept.id);
  emit('concepts', { query_concepts: queryIds, patient_concepts: patientIds });
  signal?.throwIfAborted();

  // fallback_only bypasses MKU retrieval: only the safety sweep and the chunk layer run.
  const retrieval = fallbackOnly
    ? { candidates: new Map<string, Candidate>(), counts: { r1_concept: 0, r1_vector: 0, r2: 0 } }
    : await retrieveCandidates(store, { queryVec: concepts.queryVec, queryConceptIds: queryIds, patientConceptIds: patientIds, mkuTopk: cfg.mku_sim_topk, depth: cfg.intersection_multihop_depth, vector: true });
  emit('retrieval', { skipped: fallbackOnly, ...retrieval.counts, union: retrieval.candidates.size });
  signal?.throwIfAborted();

  const gated = reviewGate(rankCandidates(retrieval.candidates.values(), cfg), (r) => r.candidate.mku.reviewed, cfg.include_unreviewed);
  const retained: Retained[] = gated.kept.slice(0, cfg.mku_sim_topk).map((r) => ({ mku: r.candidate.mku, score: r.score, paths: new Set(r.candidate.paths), candidate: r.candidate }));
  emit('rank', { ranked: gated.kept.length + gated.held, held_unreviewed: gated.held, kept: retained.length, top: retained.slice(0, 5).map((r) => ({ id: r.mku.id, score: r.score })) });
  signal?.throwIfAborted();

  // Out of band: whatever the rank and the cut, a safety-critical MKU the patient's concepts reach is kept.
  const swept: MkuHit[] = reviewGate(await safetySweep(store, patientIds), (h) => h.mku.reviewed, cfg.include_unreviewed).kept;
  const safetyIds = new Set(swept.map((h) => h.mku.id));
  for (const h of swept) {
    const present = retained.find((r) => r.mku.id === h.mku.id);
    if (present) {
      present.paths.add('safety');
      continue;
    }
    const c = retrieval.candidates.get(h.mku.id) ?? null;
    const score = c ? round(rankScore({ cosine: c.cosine, overlap: overlapOf(c), r2: c.r2 }, cfg)) : 0;
    retained.push({ mku: h.mku, score, paths: new Set<ContextPath>([...(c?.paths ?? []), 'safety']), candidate: c });
  }
  const named = concepts.patient.filter((h) => h.via.includes('lexical')).map((h) => h.concept.id);
  const direct = new Map<string, string[]>();
  if (named.length && swept.length) for (const h of await store.mkusByConcepts(named, 0)) direct.set(h.mku.id, (h.concepts ?? []).filter((c) => named.includes(c)));
  const conflicts = safetyConflicts(swept, concepts.factsByConcept, direct);
  emit('safety', { safety_items: [...safetyIds], conflicts: conflicts.length });
  signal?.throwIfAborted();

  const judgeSkipped = fallbackOnly;
  const proxy = judgeSkipped
    ? { score: 0, rationale: 'skipped: mode fallback_only measures the chunk layer alone' }
    : proxyJudge({ queryConceptIds: queryIds, retained: retained.filter((r) => r.candidate && !safetyIds.has(r.mku.id)).map((r) => r.candidate!) });
  // The model judges only when asked to and configured; it sees the verbatims, never the patient's facts.
  const model = !judgeSkipped && cfg.judge_enabled ? deps.policy.model : null;
  const judged = model
    ? await modelJudge(model, req.query, retained.map((r) => ({ id: r.mku.id, verbatim: r.mku.verbatim })), proxy, signal)
    : { verdict: proxy, kind: 'proxy' as const, tokensIn: 0, tokensOut: 0 };
  const verdict = judged.verdict;
  const sufficient = !judgeSkipped && verdict.score >= cfg.judge_sufficiency_cutoff;
  const judgeNote = cfg.judge_enabled && !deps.policy.model ? ' (judge_enabled: no model configured, the deterministic proxy ran)' : '';
  emit('judge', { kind: judged.kind, score: verdict.score, cutoff: cfg.judge_sufficiency_cutoff, sufficient, skipped: judgeSkipped });
  signal?.throwIfAborted();

  const runFallback = fallbackOnly || !sufficient;
  const fallback = runFallback ? await fallbackChunks(store, concepts.queryVec, cfg.fallback_chunk_topk) : [];
  emit('fallback', { ran: runFallback, chunks: fallback.length });
  signal?.throwIfAborted();

  const ids = retained.map((r) => r.mku.id);
  const provenance = await enrich(store, ids);
  const mkus = retained.map((r) => {
    const out = toResult(r, safetyIds);
    const p = provenance.get(r.mku.id);
    if (p) out.provenance = p;
    return out;
  });
  const degraded = mkus.some((m) => !m.provenance || m.provenance.degraded);
  emit('enrichment', { enriched: provenance.size, degraded });
  signal?.throwIfAborted();

  const crossRefs = await reconcileCrossRefs(store, ids, CROSS_REF_MAX_HOPS);
  emit('cross_refs', { count: crossRefs.length });
  signal?.throwIfAborted();

  // Adjudication: the router's model when one is configured (it sees verbatims only), else extractive.
  const adjudicated = cfg.agent_enabled
    ? await adjudicate(deps.policy.model, req.query, mkus.map((m) => ({ id: m.id, verbatim: m.verbatim, source: sourceLabel(m.provenance) })), signal)
    : null;
  const answer = adjudicated?.answer;
  if (adjudicated) emit('answer', { kind: adjudicated.kind, quoted: adjudicated.kind === 'extractive' ? Math.min(mkus.length, 3) : null, model_unusable: adjudicated.unusable });
  signal?.throwIfAborted();

  const paths: ContextResponse['trace']['paths_activated'] = [];
  if (!fallbackOnly && queryIds.length) paths.push('R1_concept');
  if (!fallbackOnly && cfg.mku_sim_topk > 0) paths.push('R1_vector');
  if (!fallbackOnly && queryIds.length && patientIds.length) paths.push('R2');
  if (patientIds.length) paths.push('safety');
  if (runFallback) paths.push('fallback');
  const tags: string[] = [];
  if (cfg.include_unreviewed) tags.push('unreviewed');
  if (judgeNote) tags.push('judge_model_unavailable');
  if (model && judged.kind === 'proxy') tags.push('judge_model_unusable');
  if (adjudicated?.unusable) tags.push('answer_model_unusable');
  if (degraded) tags.push('enrichment_degraded');

  return {
    query: req.query,
    ...(answer !== undefined ? { answer } : {}),
    mkus,
    safety_items: [...safetyIds],
    conflicts,
    cross_refs: crossRefs,
    fallback,
    trace: {
      mode: cfg.mode,
      include_unreviewed: cfg.include_unreviewed,
      paths_activated: paths,
      judge_score: verdict.score,
      judge_sufficient: sufficient,
      judge_cutoff: cfg.judge_sufficiency_cutoff,
      judge_rationale: verdict.rationale + judgeNote,
      judge_skipped: judgeSkipped,
      counts: {
        r1: new Set([...retrieval.candidates.values()].filter((c) => c.paths.has('R1_concept') || c.paths.has('R1_vector')).map((c) => c.mku.id)).size,
        r1_concept: retrieval.counts.r1_concept,
        r1_vector: retrieval.counts.r1_vector,
        r2: retrieval.counts.r2,
        safety: safetyIds.size,
        union: retrieval.candidates.size,
        held_unreviewed: gated.held,
        fallback: fallback.length,
        returned: mkus.length,
      },
      query_concepts: concepts.query.map(toConceptRef),
      patient_concepts: concepts.patient.map(toConceptRef),
      tags,
      config: {
        ...cfg,
        judge: judged.kind,
        judge_model: model ? model.id : null,
        agent: adjudicated ? adjudicated.kind : 'off',
        agent_model: adjudicated && deps.policy.model && mkus.length > 0 ? deps.policy.model.id : null,
        cross_ref_max_hops: CROSS_REF_MAX_HOPS,
        store: store.engine,
        embedder: deps.embedder.id,
      },
      enrichment_degraded: degraded,
      stages,
    },
    tokens_in: model || adjudicated?.tokensIn ? judged.tokensIn + (adjudicated?.tokensIn ?? 0) : null,
    tokens_out: model || adjudicated?.tokensOut ? judged.tokensOut + (adjudicated?.tokensOut ?? 0) : null,
  };
}
