/**
 * The KnowledgeStore contract (knowledge-layer.md §6.2, §6.6): one table of behaviours, run against SQLite with
 * sqlite-vec, SQLite with the brute-force cosine fallback, PostgresStore on PGlite + pgvector, and PostgresStore
 * on a real PostgreSQL server through the production pg.Pool adapter. Tests within an engine run in order on one
 * store: reads first, then writes that change the dataset.
 */
import type { KnowledgeStore } from '../../server/knowledge/store/port';
import { STORE_FACTORIES } from '../support/store-factories';
import { CHUNK_TEXT, dataset, embedder, ID, mku, TOTAL_ROWS } from './knowledge-store.dataset';

jest.setTimeout(60_000);

const vec = async (t: string) => (await embedder.embed([t]))[0];
const ids = (hits: Array<{ mku: { id: string } }>) => hits.map((h) => h.mku.id);

describe.each(STORE_FACTORIES)('KnowledgeStore contract: $name', ({ engine, open }) => {
  let store: KnowledgeStore;

  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store?.close();
  });

  test('a new store has no index info and no rows; engine is named', async () => {
    expect(store.engine).toBe(engine);
    expect(await store.indexInfo()).toBeNull();
    expect(Object.values(await store.counts()).every((n) => n === 0)).toBe(true);
  });

  test('writing vectors before the index info is set is refused', async () => {
    const batch = await dataset();
    await expect(store.write({ chunks: batch.chunks })).rejects.toThrow(/setIndexInfo/);
  });

  test('index info round-trips', async () => {
    await store.setIndexInfo({ embedder_id: embedder.id, dimension: embedder.dimension });
    expect(await store.indexInfo()).toEqual({ embedder_id: 'hash-v1-64', dimension: 64 });
  });

  test('the first write changes every row; an identical second write changes none', async () => {
    const batch = await dataset();
    expect(await store.write(batch)).toEqual({ changed: TOTAL_ROWS });
    expect(await store.write(await dataset())).toEqual({ changed: 0 });
    expect(await store.counts()).toEqual({ sources: 2, documents: 2, sections: 2, chunks: 3, mkus: 6, concepts: 15, edges: 23 });
  });

  test('a vector of the wrong dimension is refused and the index dimension cannot change under content', async () => {
    const source = { source_id: 9, name: 'X', org: 'X' };
    await expect(store.write({ sources: [source], mkus: [{ ...mku('m1'), ctx_embedding: new Float32Array(8).fill(0.1) }] })).rejects.toThrow(/8-dimensional/);
    expect((await store.counts()).sources).toBe(2); // the batch is one transaction: nothing of it was kept
    await expect(store.setIndexInfo({ embedder_id: 'other', dimension: 32 })).rejects.toThrow(/cannot change the index dimension/);
    expect(await store.indexInfo()).toEqual({ embedder_id: 'hash-v1-64', dimension: 64 });
  });

  test.each([['pénicilline'], ['penicilline'], ['PENICILLINE'], ['PÉNICILLINE']])('lexicalMkus is accent- and case-insensitive: %s', async (q) => {
    const hits = await store.lexicalMkus(q, 10);
    expect(ids(hits).sort()).toEqual([ID.m1, ID.m5].sort());
    expect(hits.every((h) => h.path === 'lexical' && h.score === 1)).toBe(true);
  });

  test('lexicalMkus scores by the share of query terms found, caps at k, and ignores query syntax', async () => {
    const hits = await store.lexicalMkus('metformine intention', 10);
    expect(ids(hits)).toEqual([ID.m3, ID.m6].sort()); // both hold both terms: equal score, ordered by id
    expect(hits.map((h) => h.score)).toEqual([1, 1]);
    const partial = await store.lexicalMkus('metformine grossesse', 10);
    expect(partial.map((h) => h.score)).toEqual([0.5, 0.5]);
    expect(await store.lexicalMkus('metformine', 1)).toHaveLength(1);
    expect(await store.lexicalMkus('"metformine" OR NEAR(', 10)).toHaveLength(2);
    expect(await store.lexicalMkus('  ', 10)).toEqual([]);
    expect(await store.lexicalMkus('metformine', 0)).toEqual([]);
  });

  test('searchConcepts matches labels and synonyms lexically, accent-insensitively', async () => {
    const hits = await store.searchConcepts('Allergie à la PENICILLINE', 5);
    expect(hits[0]).toMatchObject({ concept: { id: 'penicilline', label: 'pénicilline', kind: 'drug', source: 'local', synonyms: ['pénicillines'] }, score: 1, via: ['lexical'] });
    const syn = await store.searchConcepts('patiente, femme enceinte', 5);
    expect(syn.map((h) => h.concept.id)).toEqual(['grossesse']);
    expect(await store.searchConcepts('rien de connu ici', 5)).toEqual([]);
  });

  test('searchConcepts adds vector hits when given a query vector, and caps at k', async () => {
    const hits = await store.searchConcepts('zzz', 3, await vec('metformine'));
    expect(hits[0].concept.id).toBe('metformine');
    expect(hits[0].via).toEqual(['vector']);
    expect(hits[0].score).toBeCloseTo(1, 5);
    expect(hits.length).toBeLessThanOrEqual(3);
    const both = await store.searchConcepts('metformine', 3, await vec('metformine'));
    expect(both[0]).toMatchObject({ concept: { id: 'metformine' }, via: ['lexical', 'vector'] });
  });

  test('mkusByConcepts: direct TRIGGERS at depth 0, weights as scores', async () => {
    const hits = await store.mkusByConcepts(['penicilline'], 0);
    expect(hits.map((h) => [h.mku.id, h.score, h.path, h.hops, h.concepts])).toEqual([
      [ID.m1, 1, 'R1_concept', 0, ['penicilline']],
      [ID.m5, 0.8, 'R1_concept', 0, ['penicilline']],
    ]);
    expect(await store.mkusByConcepts(['beta-lactamines'], 0)).toEqual([]);
    expect(await store.mkusByConcepts([], 3)).toEqual([]);
    expect(await store.mkusByConcepts(['no-such-concept'], 3)).toEqual([]);
  });

  test('mkusByConcepts: R2 walks RELATED/BROADER both ways, halving the weight per hop', async () => {
    const hits = await store.mkusByConcepts(['beta-lactamines'], 1);
    expect(hits.map((h) => [h.mku.id, h.score, h.path, h.hops])).toEqual([
      [ID.m1, 0.5, 'R2', 1],
      [ID.m5, 0.4, 'R2', 1],
    ]);
    const viaRelated = await store.mkusByConcepts(['diabete'], 1);
    expect(viaRelated.map((h) => [h.mku.id, h.hops])).toEqual([[ID.m3, 1]]);
  });

  test('mkusByConcepts caps the depth at 5 hops', async () => {
    expect(ids(await store.mkusByConcepts(['chain1'], 4))).toEqual([]);
    expect((await store.mkusByConcepts(['chain1'], 5)).map((h) => [h.mku.id, h.hops])).toEqual([[ID.m6, 5]]);
    expect(await store.mkusByConcepts(['chain0'], 6)).toEqual([]); // six hops needed, capped at five
    expect(await store.mkusByConcepts(['chain0'], 100)).toEqual([]);
  });

  test('safetyMkusForConcepts returns only safety-critical MKUs, through the concept graph', async () => {
    expect((await store.safetyMkusForConcepts(['penicilline'])).map((h) => [h.mku.id, h.path])).toEqual([[ID.m1, 'safety']]);
    expect(ids(await store.safetyMkusForConcepts(['beta-lactamines']))).toEqual([ID.m1]);
    expect(ids(await store.safetyMkusForConcepts(['grossesse', 'ains']))).toEqual([ID.m2]);
    expect((await store.safetyMkusForConcepts(['grossesse', 'ains']))[0].concepts).toEqual(['ains', 'grossesse']);
    expect(await store.safetyMkusForConcepts(['metformine'])).toEqual([]);
  });

  test('vectorMkus ranks by cosine and caps at k', async () => {
    const hits = await store.vectorMkus(await vec(mku('m3').verbatim), 3);
    expect(hits).toHaveLength(3);
    expect(hits[0].mku.id).toBe(ID.m3);
    expect(hits[0].path).toBe('R1_vector');
    expect(hits[0].score).toBeCloseTo(1, 5);
    expect(hits[0].mku).toEqual(mku('m3'));
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
    expect(await store.vectorMkus(await vec('x'), 0)).toEqual([]);
    expect(await store.vectorMkus(new Float32Array(64), 5)).toEqual([]);
  });

  test('vectorChunks ranks chunks by cosine', async () => {
    const hits = await store.vectorChunks(await vec(CHUNK_TEXT.c2), 2);
    expect(hits.map((h) => h.chunk.chunk_id)[0]).toBe('c2');
    expect(hits[0].chunk).toEqual({ chunk_id: 'c2', section_id: 's2', text: CHUNK_TEXT.c2, page: '12' });
    expect(hits).toHaveLength(2);
  });

  test('provenance joins MKU → chunk → section → document → source; degraded without summaries', async () => {
    const p = await store.provenance([ID.m1, ID.m3, 'mku_nope_000000000000']);
    expect([...p.keys()].sort()).toEqual([ID.m1, ID.m3].sort());
    expect(p.get(ID.m1)).toEqual({
      doc_id: 'd1', doc_title: 'Prescrire en sécurité', doc_url: 'https://example.org/d1', reco_id: 'r1', year: 2024, license: 'CC0',
      source_id: 1, source_name: 'HAS', source_org: 'Haute Autorité de Santé', section_titles: ['Allergies'], pages: ['3', '4'],
      section_summaries: ['Résumé de la section allergies.'], doc_summary: 'Résumé du document 1.', degraded: false,
    });
    expect(p.get(ID.m3)).toMatchObject({ doc_id: 'd2', year: null, doc_url: null, source_id: 2, source_name: 'SFAR', section_titles: ['Diabète', 'Suivi'], pages: ['12'], section_summaries: [], doc_summary: null, degraded: true });
    expect((await store.provenance([])).size).toBe(0);
  });

  test('crossRefs follows CROSS_REF up to 3 hops and never returns or walks LINEAGE', async () => {
    const refs = await store.crossRefs([ID.m3], 3);
    expect(refs.map((r) => [r.from_id, r.to_id, r.stance, r.hops])).toEqual([
      [ID.m3, ID.m4, 'PARTIAL', 1],
      [ID.m4, ID.m2, 'AGREE', 2],
      [ID.m2, ID.m1, 'DISAGREE', 3],
    ]);
    expect(refs[0].note).toBe('même population');
    expect(refs[1].note).toBeNull();
    expect(await store.crossRefs([ID.m3], 99)).toEqual(refs); // capped at 3
    expect((await store.crossRefs([ID.m3], 1)).map((r) => r.to_id)).toEqual([ID.m4]);
    expect(await store.crossRefs([ID.m3], 0)).toEqual([]);
    const fromM6 = await store.crossRefs([ID.m6], 3);
    expect(fromM6.every((r) => (r.stance as string) !== 'LINEAGE')).toBe(true);
    expect(fromM6.map((r) => [r.from_id, r.to_id, r.hops])).toEqual([
      [ID.m6, ID.m5, 1],
      [ID.m1, ID.m5, 2],
      [ID.m2, ID.m1, 3],
    ]);
  });

  test('mkusById returns the known ids only', async () => {
    const m = await store.mkusById([ID.m2, 'mku_x_000000000000', ID.m4]);
    expect([...m.keys()].sort()).toEqual([ID.m2, ID.m4].sort());
    expect(m.get(ID.m4)).toEqual(mku('m4'));
    expect(m.get(ID.m4)!.reviewed).toBe(false);
    expect(m.get(ID.m2)!.safety_critical).toBe(true);
  });

  test('changed rows are counted one by one, and re-written content is read back', async () => {
    const batch = await dataset();
    const m1 = batch.mkus!.find((m) => m.id === ID.m1)!;
    const edge = { ...batch.edges![0], props: { role: 'criteria', weight: 0.9 } };
    expect(await store.write({ mkus: [{ ...m1, strength: 'forte' }], edges: [edge] })).toEqual({ changed: 2 });
    expect((await store.mkusById([ID.m1])).get(ID.m1)!.strength).toBe('forte');
    expect((await store.mkusByConcepts(['penicilline'], 0))[0].score).toBe(0.9);
    expect(await store.write({ mkus: [{ ...m1, strength: 'forte' }], edges: [edge] })).toEqual({ changed: 0 });
  });

  test('full-text and vector indexes follow a re-written row', async () => {
    const batch = await dataset();
    const m3 = batch.mkus!.find((m) => m.id === ID.m3)!;
    const text = 'Texte réécrit : céphalosporines de troisième génération.';
    expect(await store.write({ mkus: [{ ...m3, verbatim: text, ctx_embedding: await vec(text) }] })).toEqual({ changed: 1 });
    expect((await store.lexicalMkus('CEPHALOSPORINES', 5)).map((h) => h.mku.id)).toEqual([ID.m3]);
    expect((await store.lexicalMkus('metformine', 5)).map((h) => h.mku.id)).toEqual([ID.m6]);
    expect((await store.vectorMkus(await vec(text), 1))[0].mku.id).toBe(ID.m3);
    expect(await store.write({ mkus: [m3] })).toEqual({ changed: 1 });
    expect((await store.lexicalMkus('metformine', 5)).map((h) => h.mku.id).sort()).toEqual([ID.m3, ID.m6].sort());
    expect(await store.lexicalMkus('céphalosporines', 5)).toEqual([]);
  });

  test('pruneMkus removes the document’s other MKUs with their text, vectors and edges', async () => {
    expect(await store.pruneMkus('d2', [ID.m3, ID.m4])).toBe(2);
    expect(await store.pruneMkus('d2', [ID.m3, ID.m4])).toBe(0);
    expect(ids(await store.lexicalMkus('penicilline', 10))).toEqual([ID.m1]);
    expect(ids(await store.vectorMkus(await vec(mku('m6').verbatim), 10))).not.toContain(ID.m6);
    expect(await store.mkusByConcepts(['chain1'], 5)).toEqual([]);
    expect((await store.crossRefs([ID.m1], 3)).some((r) => r.to_id === ID.m5 || r.from_id === ID.m6)).toBe(false);
    expect(await store.counts()).toMatchObject({ mkus: 4, edges: 23 - 5 });
  });
});
