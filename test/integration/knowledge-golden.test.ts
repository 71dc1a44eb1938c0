/**
 * Golden retrieval on the synthetic fixtures, on every real store engine (SQLite with sqlite-vec, SQLite
 * brute force, Postgres through PGlite, a real PostgreSQL server): safety recall 100 % (also in fallback_only),
 * LINEAGE never returned, the review gate, accent/case folding, and a recall floor on the gold set.
 */
import { createEmbedder } from '../../server/knowledge/embedder';
import { evaluateGold, readGold } from '../../server/knowledge/eval';
import { loadContent } from '../../server/knowledge/loader';
import { runContext } from '../../server/knowledge/pipeline/context';
import { runRetrieve } from '../../server/knowledge/pipeline/retrieve';
import type { PipelineDeps } from '../../server/knowledge/pipeline/types';
import type { KnowledgeStore } from '../../server/knowledge/store/port';
import { STORE_FACTORIES } from '../support/store-factories';
import { FIXTURES, GOLD } from '../support/knowledge-service';

const gold = readGold(GOLD);
const embedder = createEmbedder();

describe.each(STORE_FACTORIES)('golden retrieval on $name', ({ open }) => {
  let store: KnowledgeStore;
  let deps: PipelineDeps;
  beforeAll(async () => {
    store = await open();
    await loadContent(store, embedder, FIXTURES);
    deps = { store, embedder, policy: { allowUnreviewed: false, model: null } };
  }, 60_000);
  afterAll(async () => {
    await store.close();
  });

  test.each(gold.cases.filter((c) => c.expected_safety_items.length).map((c) => [c.id, c] as const))('%s: every expected safety item is swept and returned', async (_id, c) => {
    const out = await runContext(deps, { query: c.query, patient_ehr: c.patient_ehr, opts: { mode: c.mode ?? 'full' } });
    for (const id of c.expected_safety_items) {
      expect(out.safety_items).toContain(id);
      const m = out.mkus.find((x) => x.id === id);
      expect(m?.paths).toContain('safety');
      expect(m?.safety_critical).toBe(true);
    }
    if (c.mode === 'fallback_only') {
      expect(out.mkus.every((m) => m.paths.includes('safety'))).toBe(true);
      expect(out.fallback.length).toBeGreaterThan(0);
      expect(out.fallback.every((f) => f.tag === 'non_adjudiqué')).toBe(true);
    }
  });

  test('gold set: safety recall 100 %, recall@k at least 85 %', async () => {
    const report = await evaluateGold(deps, gold);
    expect(report.cases.flatMap((c) => c.missingSafety)).toEqual([]);
    expect(report.safetyRecall).toBe(1);
    expect(report.recallAtK).toBeGreaterThanOrEqual(0.85);
  });

  test('LINEAGE never appears; the other three stances do', async () => {
    const lineage = new Set((gold.lineage_pairs ?? []).map(([a, b]) => `${a}>${b}`));
    const stances = new Set<string>();
    for (const c of gold.cases) {
      const ctx = await runContext(deps, { query: c.query, patient_ehr: c.patient_ehr });
      const ret = await runRetrieve(deps, { query: c.query });
      for (const r of ctx.cross_refs) {
        stances.add(r.stance);
        expect(lineage.has(`${r.from_id}>${r.to_id}`)).toBe(false);
      }
      for (const r of ret.cross_refs) expect(lineage.has(`${r.id1}>${r.id2}`)).toBe(false);
      expect(JSON.stringify([ctx, ret])).not.toContain('LINEAGE');
    }
    expect([...stances].sort()).toEqual(['AGREE', 'DISAGREE', 'PARTIAL']);
  });

  test('« pénicilline », « penicilline » and « PENICILLINE » retrieve the same MKUs', async () => {
    const ids = async (q: string) => (await runContext(deps, { query: q, patient_ehr: {} })).mkus.map((m) => m.id);
    const accented = await ids('pénicilline');
    expect(accented.length).toBeGreaterThan(0);
    expect(await ids('penicilline')).toEqual(accented);
    expect(await ids('PENICILLINE')).toEqual(accented);
    const r = async (q: string) => (await runRetrieve(deps, { query: q })).mkus.map((m) => m.id);
    expect(await r('PENICILLINE')).toEqual(await r('pénicilline'));
  });

  test('the unreviewed MKU: held back by the gate, refused on request outside test, tagged when allowed', async () => {
    const q = { query: 'Quel antibiotique pour une angine non compliquée ?', patient_ehr: {} };
    const gated = await runContext(deps, q);
    expect(gated.mkus.map((m) => m.id)).not.toContain(gold.unreviewed_mku);
    expect(gated.trace.counts.held_unreviewed).toBe(1);
    await expect(runContext(deps, { ...q, opts: { include_unreviewed: true } })).rejects.toMatchObject({ code: 'unreviewed_not_allowed', status: 403 });
    const open = await runContext({ ...deps, policy: { allowUnreviewed: true, model: null } }, { ...q, opts: { include_unreviewed: true } });
    const m = open.mkus.find((x) => x.id === gold.unreviewed_mku);
    expect(m).toMatchObject({ review: false, tags: ['unreviewed'] });
    expect((await runRetrieve(deps, { query: q.query })).mkus.map((x) => x.id)).not.toContain(gold.unreviewed_mku);
  });

  test('provenance is the FROM_CHUNK join; a document without summaries is degraded', async () => {
    const out = await runContext(deps, { query: 'Quel antalgique chez un patient sous anticoagulant ?', patient_ehr: {} });
    const ac = out.mkus.filter((m) => m.provenance?.doc_id === 'doc_anticoag');
    expect(ac.length).toBeGreaterThan(0);
    expect(ac.every((m) => m.provenance!.degraded)).toBe(true);
    expect(out.trace.enrichment_degraded).toBe(true);
    const angine = (await runContext(deps, { query: 'angine', patient_ehr: {} })).mkus.find((m) => m.provenance?.doc_id === 'doc_angine_2024')!;
    expect(angine.provenance).toMatchObject({ doc_title: "Angine aiguë de l'adulte (fictif)", source_name: 'SFR', year: 2024, reco_id: '101', degraded: false });
    expect(angine.provenance!.section_summaries.length).toBe(1);
  });
});
