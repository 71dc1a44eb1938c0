/** Ranking, blending and judge arithmetic (knowledge-layer.md §1.3, §6.3), as tables of cases. */
import { blendScore } from '../../../server/knowledge/pipeline/retrieve';
import { proxyJudge } from '../../../server/knowledge/pipeline/judge';
import { rankCandidates, rankScore, reviewGate } from '../../../server/knowledge/pipeline/rank';
import { CONTEXT_DEFAULTS, resolveContextConfig, resolveRetrieveConfig } from '../../../server/knowledge/pipeline/options';
import type { Candidate } from '../../../server/knowledge/pipeline/retrieval';
import { fakeMku } from '../../support/knowledge-fake-store';

const W = { w_cosine: 1, w_overlap: 0.5, w_intersection: 0.5 };

describe('rankScore = w_cosine·cos + w_overlap·overlap + w_intersection·[R2]', () => {
  test.each([
    [{ cosine: 0, overlap: 0, r2: false }, W, 0],
    [{ cosine: 0.8, overlap: 0, r2: false }, W, 0.8],
    [{ cosine: 0, overlap: 2, r2: false }, W, 1],
    [{ cosine: 0, overlap: 1, r2: true }, W, 1],
    [{ cosine: 0.4, overlap: 1, r2: true }, W, 1.4],
    [{ cosine: 0.4, overlap: 1, r2: true }, { w_cosine: 0, w_overlap: 0, w_intersection: 2 }, 2],
    [{ cosine: 0.5, overlap: 3, r2: false }, { w_cosine: 2, w_overlap: 0.1, w_intersection: 9 }, 1.3],
  ])('%j with %j → %d', (input, w, expected) => {
    expect(rankScore(input, w)).toBeCloseTo(expected, 10);
  });
});

function cand(id: string, cosine: number, concepts: string[], r2 = false, reviewed = true): Candidate {
  return { mku: fakeMku(id, { reviewed }), cosine, queryConcepts: new Set(concepts), r2, paths: new Set(concepts.length ? ['R1_concept'] : ['R1_vector']) };
}

describe('rankCandidates', () => {
  test('orders by score, ties broken by id, R1_concept counting at least one overlap', () => {
    const ranked = rankCandidates([cand('b', 0.5, []), cand('a', 0.5, []), cand('c', 0, ['x', 'y']), cand('d', 0.1, ['x'], true)], W);
    expect(ranked.map((r) => [r.candidate.mku.id, r.score])).toEqual([
      ['d', 1.1],
      ['c', 1],
      ['a', 0.5],
      ['b', 0.5],
    ]);
  });

  test('the review gate holds unreviewed MKUs back unless include_unreviewed', () => {
    const items = [cand('a', 1, []), cand('u', 1, [], false, false)];
    expect(reviewGate(items, (c) => c.mku.reviewed, false)).toEqual({ kept: [items[0]], held: 1 });
    expect(reviewGate(items, (c) => c.mku.reviewed, true)).toEqual({ kept: items, held: 0 });
  });
});

describe('blendScore = (1 − w)·concept + w·vector', () => {
  test.each([
    [1, 0, 0, 1],
    [1, 0, 1, 0],
    [0.6, 0.8, 0.75, 0.75],
    [0.2, 0.4, 0.5, 0.3],
  ])('concept %d, vector %d, w %d → %d', (c, v, w, expected) => {
    expect(blendScore(c, v, w)).toBeCloseTo(expected, 6);
  });
});

describe('proxy judge = 0.5·coverage + 0.5·min(1, top cosine)', () => {
  test.each([
    [[], [], 0],
    [['a', 'b'], [{ queryConcepts: new Set(['a']), cosine: 0 }], 0.25],
    [['a', 'b'], [{ queryConcepts: new Set(['a', 'b']), cosine: 0.4 }], 0.7],
    [['a'], [{ queryConcepts: new Set<string>(), cosine: 1.7 }], 0.5],
    [['a'], [{ queryConcepts: new Set(['z']), cosine: 0.2 }], 0.1],
  ])('concepts %j over %j → %d', (ids, retained, expected) => {
    expect(proxyJudge({ queryConceptIds: ids, retained }).score).toBeCloseTo(expected, 6);
  });
});

describe('knob resolution', () => {
  test('null and absent knobs take the server defaults of §6.3', () => {
    const cfg = resolveContextConfig({ mku_sim_topk: null, w_overlap: 2 }, { allowUnreviewed: false, model: null });
    expect(cfg).toEqual({ ...CONTEXT_DEFAULTS, w_overlap: 2 });
    expect(cfg).toMatchObject({ concept_sim_topk: 5, mku_sim_topk: 12, fallback_chunk_topk: 10, intersection_multihop_depth: 1, judge_sufficiency_cutoff: 0.5, w_cosine: 1 });
  });

  test('include_unreviewed is refused unless the deployment allows it', () => {
    expect(() => resolveContextConfig({ include_unreviewed: true }, { allowUnreviewed: false, model: null })).toThrow(expect.objectContaining({ code: 'unreviewed_not_allowed', status: 403 }));
    expect(resolveContextConfig({ include_unreviewed: true }, { allowUnreviewed: true, model: null }).include_unreviewed).toBe(true);
    expect(resolveContextConfig({ include_unreviewed: false }, { allowUnreviewed: false, model: null }).include_unreviewed).toBe(false);
  });

  test('/v2/retrieve takes the promoted defaults, k = 0 allowed', () => {
    expect(resolveRetrieveConfig({ query: 'q' })).toEqual({ concept_k: 5, chunk_k: 10, mku_k: 12, table_k: 5, mku_weight: 0.75, use_cross_refs: true, deliberate: false });
    expect(resolveRetrieveConfig({ query: 'q', mku_k: 0, chunk_k: 0 })).toMatchObject({ mku_k: 0, chunk_k: 0 });
  });
});
