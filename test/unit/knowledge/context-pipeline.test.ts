/** The /v2/context pipeline over a store double (the golden tests run the same on the real stores). */
import { runContext } from '../../../server/knowledge/pipeline/context';
import { safetyConflicts } from '../../../server/knowledge/pipeline/safety';
import { runAnswer, answerSources, recoIdInt } from '../../../server/knowledge/pipeline/answer-v1';
import { NOT_FOUND_ANSWER } from '../../../server/knowledge/pipeline/answer';
import type { PipelineDeps } from '../../../server/knowledge/pipeline/types';
import { fakeConcept, fakeEmbedder, fakeMku, fakeProvenance, FakeKnowledgeStore, type FakeContent } from '../../support/knowledge-fake-store';

const fillers = Array.from({ length: 6 }, (_, i) => fakeMku(`m_fill${i}`));

function content(): FakeContent {
  return {
    mkus: [
      fakeMku('m_first', { verbatim: "L'amoxicilline est le traitement de première intention de l'angine." }),
      fakeMku('m_allergic', { verbatim: 'En cas d’allergie à la pénicilline, un macrolide est proposé pour une angine.' }),
      fakeMku('m_safe', { verbatim: 'Toute bêta-lactamine est contre-indiquée en cas d’allergie grave à la pénicilline.', safety_critical: true, directive: 'ne pas prescrire de bêta-lactamine' }),
      fakeMku('m_unrev', { reviewed: false }),
      fakeMku('m_vec'),
      ...fillers,
    ],
    concepts: [fakeConcept('c_angine', 'angine'), fakeConcept('c_peni', 'pénicilline', ['penicilline']), fakeConcept('c_amox', 'amoxicilline')],
    triggers: { c_angine: ['m_first', 'm_allergic', 'm_unrev', ...fillers.map((m) => m.id)], c_amox: ['m_first'], c_peni: ['m_allergic', 'm_safe'] },
    mkuCosine: { m_vec: 0.9, m_first: 0.3 },
    chunks: [{ chunk: { chunk_id: 'ch1', section_id: 's1', text: 'Texte brut.', page: '1' }, score: 0.42 }],
    provenance: Object.fromEntries(['m_first', 'm_allergic', 'm_safe', 'm_vec'].map((id) => [id, fakeProvenance(id === 'm_vec' ? 'doc_b' : 'doc_a', id === 'm_vec' ? { section_summaries: [], doc_summary: null, degraded: false } : {})])),
    crossRefs: [
      { from_id: 'm_first', to_id: 'm_allergic', stance: 'PARTIAL', note: null, hops: 1 },
      { from_id: 'm_first', to_id: 'm_vec', stance: 'LINEAGE', note: null, hops: 1 },
    ],
  };
}

function deps(store = new FakeKnowledgeStore(content()), allowUnreviewed = false): PipelineDeps & { store: FakeKnowledgeStore } {
  return { store, embedder: fakeEmbedder, policy: { allowUnreviewed, model: null } };
}

const allergic = { allergies: ['Pénicilline'] };

describe('runContext', () => {
  test('R1 ∪ R2: the MKU both the query and a patient concept reach carries R2 and its boost', async () => {
    const out = await runContext(deps(), { query: 'angine amoxicilline', patient_ehr: allergic });
    const first = out.mkus.find((m) => m.id === 'm_first')!;
    const r2 = out.mkus.find((m) => m.id === 'm_allergic')!;
    expect(r2.paths).toEqual(['R1_concept', 'R2']);
    // m_first: cos 0.3 + 0.5·2 concepts = 1.3; m_allergic: 0.5·1 + 0.5·[R2] = 1.0; m_vec: 0.9.
    expect(first.score).toBeCloseTo(1.3, 6);
    expect(r2.score).toBeCloseTo(1.0, 6);
    expect(out.mkus.slice(0, 3).map((m) => m.id)).toEqual(['m_first', 'm_allergic', 'm_vec']);
    expect(out.trace.counts).toMatchObject({ r2: 1, r1_vector: 2 });
  });

  test('patient concepts alone never retrieve: no query concept, no R2', async () => {
    const out = await runContext(deps(), { query: 'question sans concept', patient_ehr: allergic });
    expect(out.mkus.some((m) => m.id === 'm_allergic')).toBe(false);
    expect(out.trace.paths_activated).not.toContain('R2');
  });

  test('the safety sweep keeps a safety-critical MKU whatever its rank, with a conflict naming the fact', async () => {
    const out = await runContext(deps(), { query: 'angine', patient_ehr: allergic, opts: { mku_sim_topk: 1 } });
    expect(out.safety_items).toEqual(['m_safe']);
    const safe = out.mkus.find((m) => m.id === 'm_safe')!;
    expect(safe.paths).toContain('safety');
    expect(safe.tags).toContain('safety-relevant');
    expect(out.conflicts).toEqual([{ description: 'Allergie du patient « Pénicilline » : ne pas prescrire de bêta-lactamine', patient_factor: 'Pénicilline', mku_id: 'm_safe' }]);
    // Only one ranked MKU survives the cut; the safety item is added besides it.
    expect(out.mkus.filter((m) => !m.paths.includes('safety'))).toHaveLength(1);
  });

  test('mode fallback_only skips MKU retrieval but still runs the safety sweep and the chunk layer', async () => {
    const d = deps();
    const out = await runContext(d, { query: 'angine', patient_ehr: allergic, opts: { mode: 'fallback_only' } });
    expect(out.mkus.map((m) => m.id)).toEqual(['m_safe']);
    expect(out.safety_items).toEqual(['m_safe']);
    expect(out.fallback).toEqual([{ chunk_id: 'ch1', text: 'Texte brut.', score: 0.42, tag: 'non_adjudiqué' }]);
    expect(out.trace).toMatchObject({ mode: 'fallback_only', judge_skipped: true, judge_sufficient: false });
    expect(out.trace.paths_activated).toEqual(['safety', 'fallback']);
    expect(d.store.calls).not.toContain('vectorMkus');
  });

  test('include_unreviewed: refused by default; when allowed the MKU is kept and tagged', async () => {
    await expect(runContext(deps(), { query: 'angine', patient_ehr: {}, opts: { include_unreviewed: true } })).rejects.toMatchObject({ code: 'unreviewed_not_allowed' });
    const gated = await runContext(deps(), { query: 'angine', patient_ehr: {} });
    expect(gated.mkus.map((m) => m.id)).not.toContain('m_unrev');
    expect(gated.trace.counts.held_unreviewed).toBe(1);
    const open = await runContext(deps(undefined, true), { query: 'angine', patient_ehr: {}, opts: { include_unreviewed: true } });
    expect(open.mkus.find((m) => m.id === 'm_unrev')?.tags).toContain('unreviewed');
    expect(open.trace.include_unreviewed).toBe(true);
  });

  test('LINEAGE never leaves the pipeline, even when a store hands it over', async () => {
    const out = await runContext(deps(), { query: 'angine amoxicilline', patient_ehr: {} });
    expect(out.cross_refs).toEqual([{ from_id: 'm_first', to_id: 'm_allergic', stance: 'PARTIAL' }]);
  });

  test('enrichment: provenance joined; missing summaries mark it degraded', async () => {
    const out = await runContext(deps(), { query: 'angine amoxicilline', patient_ehr: {} });
    expect(out.mkus.find((m) => m.id === 'm_first')!.provenance).toMatchObject({ doc_id: 'doc_a', degraded: false });
    expect(out.mkus.find((m) => m.id === 'm_vec')!.provenance).toMatchObject({ doc_id: 'doc_b', degraded: true });
    expect(out.trace.enrichment_degraded).toBe(true);
  });

  test('judge: below the cutoff the fallback runs; trace.config says the proxy ran', async () => {
    const low = await runContext(deps(), { query: 'angine', patient_ehr: {}, opts: { judge_sufficiency_cutoff: 1, judge_enabled: true } });
    expect(low.trace.judge_sufficient).toBe(false);
    expect(low.fallback).toHaveLength(1);
    expect(low.trace.tags).toContain('judge_model_unavailable');
    expect(low.trace.config).toMatchObject({ judge: 'proxy', judge_model: null, agent: 'off', judge_sufficiency_cutoff: 1, mku_sim_topk: 12 });
    const high = await runContext(deps(), { query: 'angine', patient_ehr: {}, opts: { judge_sufficiency_cutoff: 0.1 } });
    expect(high.trace.judge_sufficient).toBe(true);
    expect(high.fallback).toEqual([]);
    expect(high.answer).toBeUndefined();
  });

  test('agent_enabled without a model gives an extractive answer quoting the top verbatim', async () => {
    const out = await runContext(deps(), { query: 'angine amoxicilline', patient_ehr: {}, opts: { agent_enabled: true } });
    expect(out.answer).toContain("> L'amoxicilline est le traitement de première intention de l'angine.");
    expect(out.answer).toContain('[m_first]');
    expect(out.trace.config.agent).toBe('extractive');
  });

  test('each stage emits one event, in order', async () => {
    const stages: string[] = [];
    const out = await runContext(deps(), { query: 'angine', patient_ehr: allergic }, (s) => stages.push(s));
    expect(stages).toEqual(['concepts', 'retrieval', 'rank', 'safety', 'judge', 'fallback', 'enrichment', 'cross_refs']);
    expect(out.trace.stages?.map((s) => s.stage)).toEqual(stages);
    // The trace's stage events carry ids and counts, never the patient's facts.
    expect(JSON.stringify(out.trace.stages)).not.toContain('Pénicilline');
  });

  test('an abort stops the work at the next stage boundary', async () => {
    const d = deps();
    const controller = new AbortController();
    d.store.onRead = (m) => {
      if (m === 'provenance') controller.abort();
    };
    await expect(runContext(d, { query: 'angine', patient_ehr: allergic }, undefined, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(d.store.calls).toContain('provenance');
    expect(d.store.calls).not.toContain('crossRefs');
  });
});

describe('/v1/answer shaping', () => {
  test('sources de-duplicated by reco_id; evidence stacked per document; steps', async () => {
    const out = await runAnswer(deps(), { query: 'angine amoxicilline' });
    expect(out.sources).toHaveLength(2);
    expect(new Set(out.sources.map((s) => s.reco_id)).size).toBe(2);
    expect(out.evidence.map((e) => e.units.length).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3);
    expect(out.steps.map((s) => s.tool)).toEqual(['search', 'rank', 'answer']);
    expect(out.answer).toContain('[m_first]');
  });

  test('nothing passes the judge: the fixed not-found sentence', async () => {
    const out = await runAnswer(deps(), { query: 'rien de connu' });
    expect(out.answer).toBe(NOT_FOUND_ANSWER);
    expect(out.sources).toEqual([]);
  });

  test('reco_id: numeric strings keep their value, others get a stable positive int', () => {
    expect(recoIdInt('42', 'doc')).toBe(42);
    expect(recoIdInt(null, 'doc_a')).toBe(recoIdInt(null, 'doc_a'));
    expect(recoIdInt('R-7', 'doc_a')).toBeGreaterThan(0);
    const p = fakeProvenance('doc_a', { reco_id: '9' });
    const base = { verbatim: 'v', criteria: '', directive: '', safety_critical: false, review: true, evidence_grade: null, strength: null, score: 1, paths: [], tags: [] };
    expect(answerSources([{ ...base, id: 'a', provenance: p }, { ...base, id: 'b', provenance: p }])).toEqual([{ reco_id: 9, reco_title: 'Document doc_a', source_name: 'TEST', deep_link: 'https://example.invalid/doc_a' }]);
  });
});

describe('safety conflicts speak the language of the MKU', () => {
  const facts = new Map([['c_drug', [{ kind: 'treatment' as const, text: 'Warfarin 5 mg' }]], ['c_all', [{ kind: 'allergy' as const, text: 'Penicillin' }]]]);
  test.each([
    ['fr', 'c_drug', 'Traitement en cours « Warfarin 5 mg » : surveiller l’INR'],
    ['en', 'c_drug', 'Current treatment "Warfarin 5 mg": surveiller l’INR'],
    ['en', 'c_all', 'Patient allergy "Penicillin": surveiller l’INR'],
    ['de', 'c_all', 'Allergie du patient « Penicillin » : surveiller l’INR'],
  ])('lang %s, concept %s', (lang, concept, description) => {
    const mku = fakeMku('m1', { safety_critical: true, directive: 'surveiller l’INR', lang });
    const out = safetyConflicts([{ mku, score: 1, path: 'safety' as never }], facts, new Map([['m1', [concept]]]));
    expect(out).toEqual([{ description, patient_factor: facts.get(concept)![0].text, mku_id: 'm1' }]);
  });
});
