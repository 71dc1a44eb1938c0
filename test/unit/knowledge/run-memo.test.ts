/**
 * The per-run read view (`store.forRun()`, store/run-memo.ts) answers exactly what the store answers: random
 * call sequences (sequential and concurrent) over the demo knowledge base, and whole `/v2/context` runs over
 * both gold sets, compared with the same store without the view (the oracle). Plus the memo's own promises:
 * one walk per seed per run, nothing kept across runs, and a run view never closes the shared store.
 */
import path from 'node:path';
import { createEmbedder } from '../../../server/knowledge/embedder';
import { readGold } from '../../../server/knowledge/eval';
import { loadContent } from '../../../server/knowledge/loader';
import { runContext } from '../../../server/knowledge/pipeline/context';
import type { ContextOpts, ContextResponse, PipelineDeps } from '../../../server/knowledge/pipeline/types';
import type { StoreDriver, TriggerRow } from '../../../server/knowledge/store/driver';
import type { KnowledgeStore } from '../../../server/knowledge/store/port';
import { memoizeForRun } from '../../../server/knowledge/store/run-memo';
import { openSqliteStore } from '../../../server/knowledge/store/sqlite/sqlite-store';
import { Rng } from '../../support/fuzz/rng';

const ROOT = path.join(__dirname, '../../..');
const DEMO = path.join(ROOT, 'data/knowledge/demo');
const embedder = createEmbedder();

/** The store as it was before run views: every read goes to the engine. */
function withoutRunView(store: KnowledgeStore): KnowledgeStore {
  return { ...store, forRun: undefined };
}

/** The suites' seeded generator (mulberry32): failures reproduce. */
function rng(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.next();
}

const pick = <T>(rand: () => number, xs: T[], n: number): T[] => Array.from({ length: n }, () => xs[Math.floor(rand() * xs.length)]);

/** Stage timings are the only part of a response that may differ between two runs. */
function scrub(res: ContextResponse): unknown {
  const copy = JSON.parse(JSON.stringify(res)) as ContextResponse;
  for (const s of copy.trace.stages ?? []) s.t_ms = 0;
  return copy;
}

describe('per-run read view over the demo knowledge base', () => {
  let store: KnowledgeStore;
  let concepts: string[];
  let mkuIds: string[];
  beforeAll(async () => {
    store = openSqliteStore(':memory:');
    await loadContent(store, embedder, [DEMO]);
    const [vec] = await embedder.embed(['warfarin amoxicillin metformin lisinopril pregnancy kidney']);
    mkuIds = (await store.vectorMkus(vec, 1000)).map((h) => h.mku.id);
    concepts = [...new Set((await store.mkusByConcepts(await allConceptIds(store), 0)).flatMap((h) => h.concepts ?? []))];
  }, 60_000);
  afterAll(() => store.close());

  async function allConceptIds(s: KnowledgeStore): Promise<string[]> {
    const texts = ['warfarin', 'amoxicillin', 'penicillin allergy', 'metformin', 'renal impairment', 'pregnancy', 'lisinopril', 'ACE inhibitor', 'NSAID', 'contrast', 'breastfeeding', 'potassium', 'angioedema', 'anticoagulant', 'antibiotic'];
    const hits = await Promise.all(texts.map(async (t) => s.searchConcepts(t, 10, (await embedder.embed([t]))[0])));
    return [...new Set(hits.flat().map((h) => h.concept.id))];
  }

  test('the demo holds enough to compare', () => {
    expect(mkuIds.length).toBeGreaterThan(100);
    expect(concepts.length).toBeGreaterThan(10);
  });

  test('random call sequences answer as the store does, sequential and concurrent', async () => {
    const plain = withoutRunView(store);
    const rand = rng(42);
    const queries = await embedder.embed(['monitor INR antibiotic', 'lactic acidosis contrast', 'hyperkalemia potassium', 'fetal toxicity pregnancy', '']);
    type Call = (s: KnowledgeStore) => Promise<unknown>;
    const calls: Array<() => Call> = [
      () => {
        const seeds = pick(rand, [...concepts, 'c_unknown'], 1 + Math.floor(rand() * 5));
        const depth = Math.floor(rand() * 6);
        return (s) => s.mkusByConcepts(seeds, depth);
      },
      () => {
        const seeds = pick(rand, concepts, 1 + Math.floor(rand() * 4));
        return (s) => s.safetyMkusForConcepts(seeds);
      },
      () => {
        const vec = pick(rand, queries, 1)[0];
        const k = Math.floor(rand() * 20);
        return (s) => s.vectorMkus(vec, k);
      },
      () => {
        const ids = pick(rand, [...mkuIds, 'mku_x_000000000000'], Math.floor(rand() * 30));
        return async (s) => [...(await s.provenance(ids))];
      },
      () => {
        const ids = pick(rand, [...mkuIds, 'mku_x_000000000000'], Math.floor(rand() * 30));
        return async (s) => [...(await s.mkusById(ids))].sort((a, b) => (a[0] < b[0] ? -1 : 1));
      },
      () => {
        const ids = pick(rand, mkuIds, 1 + Math.floor(rand() * 10));
        return (s) => s.crossRefs(ids, 3);
      },
    ];
    for (let trial = 0; trial < 60; trial++) {
      const view = store.forRun!();
      const sequence = Array.from({ length: 4 + Math.floor(rand() * 10) }, () => pick(rand, calls, 1)[0]());
      const expected = [];
      for (const call of sequence) expected.push(await call(plain));
      const actual = trial % 2 === 0 ? await Promise.all(sequence.map((call) => call(view))) : [];
      if (trial % 2 === 1) for (const call of sequence) actual.push(await call(view));
      expect(actual).toEqual(expected);
    }
  });

  test('a view is per run: a fresh one each call, itself inside a run, and closing it leaves the store open', async () => {
    const a = store.forRun!();
    const b = store.forRun!();
    expect(a).not.toBe(b);
    expect(a.forRun!()).toBe(a);
    await a.close();
    expect((await store.counts()).mkus).toBeGreaterThan(0);
    expect((await b.mkusByConcepts(concepts.slice(0, 2), 1)).length).toBeGreaterThanOrEqual(0);
  });
});

describe.each([
  { name: 'French synthetic fixtures', gold: path.join(ROOT, 'test/fixtures/knowledge/gold.json'), content: path.join(ROOT, 'test/fixtures/knowledge') },
  { name: 'English demo KB', gold: path.join(ROOT, 'test/fixtures/knowledge-demo/gold.json'), content: DEMO },
])('/v2/context with and without the run view: $name', ({ gold, content }) => {
  let store: KnowledgeStore;
  beforeAll(async () => {
    store = openSqliteStore(':memory:');
    await loadContent(store, embedder, [content]);
  }, 60_000);
  afterAll(() => store.close());

  const OPTS: ContextOpts[] = [
    { agent_enabled: true },
    { agent_enabled: false, intersection_multihop_depth: 2, concept_sim_topk: 8 },
    { agent_enabled: false, intersection_multihop_depth: 0, mku_sim_topk: 3 },
    { agent_enabled: false, mode: 'fallback_only' },
    { agent_enabled: false, include_unreviewed: true, intersection_multihop_depth: 5 },
  ];

  test('every gold case, several option sets, and every case against other patients', async () => {
    const set = readGold(gold);
    const policy = { allowUnreviewed: true, model: null };
    const viewed: PipelineDeps = { store, embedder, policy };
    const plain: PipelineDeps = { store: withoutRunView(store), embedder, policy };
    const patients = set.cases.map((c) => c.patient_ehr);
    let compared = 0;
    for (const c of set.cases) {
      for (const opts of OPTS) {
        const req = { query: c.query, patient_ehr: c.patient_ehr, opts: { ...opts, mode: opts.mode ?? c.mode ?? 'full' } };
        expect(scrub(await runContext(viewed, req))).toEqual(scrub(await runContext(plain, req)));
        compared++;
      }
      for (const p of patients) {
        const req = { query: c.query, patient_ehr: p, opts: { agent_enabled: false } };
        expect(scrub(await runContext(viewed, req))).toEqual(scrub(await runContext(plain, req)));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(50);
  }, 60_000);
});

describe('memoizeForRun', () => {
  function countingDriver(rows: TriggerRow[]): { driver: StoreDriver; walks: Array<[string[], number]> } {
    const walks: Array<[string[], number]> = [];
    const driver = {
      engine: 'sqlite',
      async triggerRows(seeds: string[], depth: number) {
        walks.push([seeds, depth]);
        return rows.filter((r) => seeds.includes(r.seed) && r.hops <= depth);
      },
    } as unknown as StoreDriver;
    return { driver, walks };
  }
  const rows: TriggerRow[] = [
    { seed: 'q', hops: 0, mku_id: 'm1', props: {} },
    { seed: 'q', hops: 1, mku_id: 'm2', props: {} },
    { seed: 'p', hops: 0, mku_id: 'm2', props: {} },
    { seed: 'p', hops: 2, mku_id: 'm3', props: {} },
  ];

  test("a context run's walks (R1, R2 both sides, safety, conflicts) reach the engine once per seed set", async () => {
    const { driver, walks } = countingDriver(rows);
    const memo = memoizeForRun(driver, 2);
    expect(await memo.triggerRows(['q'], 0)).toEqual([rows[0]]);
    expect(await memo.triggerRows(['q'], 1)).toEqual([rows[0], rows[1]]);
    expect(await memo.triggerRows(['p'], 1)).toEqual([rows[2]]);
    expect(await memo.triggerRows(['p'], 2)).toEqual([rows[2], rows[3]]);
    expect(await memo.triggerRows(['p', 'q'], 0)).toEqual([rows[2], rows[0]]);
    expect(walks).toEqual([[['q'], 2], [['p'], 2]]);
    // Deeper than the memo holds: the engine is asked again.
    await memo.triggerRows(['q'], 4);
    expect(walks[2]).toEqual([['q'], 4]);
  });

  test('an engine failure rejects every caller of that walk, and only them', async () => {
    const driver = { engine: 'sqlite', triggerRows: async () => Promise.reject(new Error('engine down')) } as unknown as StoreDriver;
    const memo = memoizeForRun(driver, 2);
    await expect(memo.triggerRows(['a', 'b'], 1)).rejects.toThrow('engine down');
    await expect(memo.triggerRows(['b'], 0)).rejects.toThrow('engine down');
  });
});
