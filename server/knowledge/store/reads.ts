/**
 * The KnowledgeStore port over an engine driver: every score, hop discount, cap, filter and ordering lives
 * here, once, so SQLite and Postgres answer the contract suite identically. Engines only fetch candidates.
 */
import { contentTerms } from '../fold';
import type { StoreDriver, TriggerRow } from './driver';
import { isZero } from './row-hash';
import { memoizeForRun } from './run-memo';
import type { ConceptHit, CrossRef, KnowledgeStore, Mku, MkuHit, MkuPath, Provenance } from './port';

/** R2 walks at most 5 concept hops; CROSS_REF expansion at most 3 (knowledge-layer.md §6.2). */
export const MAX_CONCEPT_DEPTH = 5;
export const MAX_CROSS_REF_HOPS = 3;
/** The safety sweep follows RELATED/BROADER this far: an allergy to a class must reach its members' MKUs. */
export const SAFETY_DEPTH = 2;
/** Each concept-graph hop halves a TRIGGERS weight. */
export const HOP_DISCOUNT = 0.5;
/** Engines return this many full-text candidates per requested hit before the shared re-scoring. */
const CANDIDATE_FACTOR = 4;
const MIN_CANDIDATES = 50;

const clampInt = (n: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, Math.floor(Number.isFinite(n) ? n : lo)));
const byScoreThenId = <T>(id: (x: T) => string) => (a: T & { score: number }, b: T & { score: number }) =>
  b.score - a.score || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0);

/** Share of the query's content terms found among the text's content terms (0–1). */
export function termCoverage(queryTerms: string[], text: string): number {
  if (queryTerms.length === 0) return 0;
  const tokens = new Set(contentTerms(text));
  return queryTerms.filter((t) => tokens.has(t)).length / queryTerms.length;
}

/** How completely one of the concept's names (label or a synonym) appears in the query: 1 = a whole name. */
export function conceptNameScore(names: string[], queryTerms: Set<string>): number {
  let best = 0;
  for (const name of names) {
    const toks = contentTerms(name);
    if (toks.length === 0) continue;
    best = Math.max(best, toks.filter((t) => queryTerms.has(t)).length / toks.length);
  }
  return best;
}

function uniq(ids: string[]): string[] {
  return [...new Set(ids.filter((x) => typeof x === 'string' && x.length > 0))];
}

/** `runScoped`: the store is already one run's view (its `forRun()` is itself). */
export function createStoreOverDriver(driver: StoreDriver, runScoped = false): KnowledgeStore {
  async function hitsFromTriggers(rows: TriggerRow[], path: (hops: number) => MkuPath, keep: (m: Mku) => boolean): Promise<MkuHit[]> {
    const agg = new Map<string, { score: number; hops: number; concepts: Set<string> }>();
    for (const r of rows) {
      const weight = typeof r.props.weight === 'number' && Number.isFinite(r.props.weight) ? r.props.weight : 1;
      const score = weight * HOP_DISCOUNT ** r.hops;
      const cur = agg.get(r.mku_id) ?? { score: -Infinity, hops: Infinity, concepts: new Set<string>() };
      cur.score = Math.max(cur.score, score);
      cur.hops = Math.min(cur.hops, r.hops);
      cur.concepts.add(r.seed);
      agg.set(r.mku_id, cur);
    }
    const mkus = await driver.mkus([...agg.keys()]);
    const hits: MkuHit[] = [];
    for (const mku of mkus) {
      const a = agg.get(mku.id)!;
      if (!keep(mku)) continue;
      hits.push({ mku, score: a.score, path: path(a.hops), concepts: [...a.concepts].sort(), hops: a.hops });
    }
    return hits.sort(byScoreThenId((h: MkuHit) => h.mku.id));
  }

  const store: KnowledgeStore = {
    engine: driver.engine,

    // The safety sweep walks patient concepts SAFETY_DEPTH deep, so one walk per seed serves every walk of the run.
    forRun: () => (runScoped ? store : createStoreOverDriver(memoizeForRun(driver, SAFETY_DEPTH), true)),

    async searchConcepts(text, k, vec) {
      const n = clampInt(k, 0, 1000);
      if (n === 0) return [];
      const terms = contentTerms(text);
      const termSet = new Set(terms);
      const hits = new Map<string, ConceptHit>();
      if (terms.length > 0) {
        for (const c of await driver.conceptCandidates(terms, Math.max(MIN_CANDIDATES, n * CANDIDATE_FACTOR))) {
          const score = conceptNameScore([c.label, ...c.synonyms], termSet);
          if (score > 0) hits.set(c.id, { concept: c, score, via: ['lexical'] });
        }
      }
      if (vec && !isZero(vec)) {
        const knn = await driver.knn('concept', vec, n);
        const missing = knn.filter((x) => !hits.has(x.id)).map((x) => x.id);
        const fetched = new Map((missing.length ? await driver.concepts(missing) : []).map((c) => [c.id, c]));
        for (const { id, similarity } of knn) {
          const score = Math.max(0, Math.min(1, similarity));
          const cur = hits.get(id);
          if (cur) {
            cur.score = Math.max(cur.score, score);
            cur.via.push('vector');
          } else if (fetched.has(id) && score > 0) {
            hits.set(id, { concept: fetched.get(id)!, score, via: ['vector'] });
          }
        }
      }
      return [...hits.values()].sort(byScoreThenId((h: ConceptHit) => h.concept.id)).slice(0, n);
    },

    async mkusByConcepts(conceptIds, depth) {
      const seeds = uniq(conceptIds);
      if (seeds.length === 0) return [];
      const rows = await driver.triggerRows(seeds, clampInt(depth, 0, MAX_CONCEPT_DEPTH));
      return hitsFromTriggers(rows, (hops) => (hops === 0 ? 'R1_concept' : 'R2'), () => true);
    },

    async vectorMkus(vec, k) {
      const n = clampInt(k, 0, 10_000);
      if (n === 0 || isZero(vec)) return [];
      const knn = await driver.knn('mku', vec, n);
      const byId = new Map((await driver.mkus(knn.map((x) => x.id))).map((m) => [m.id, m]));
      const hits = knn.filter((x) => byId.has(x.id)).map((x) => ({ mku: byId.get(x.id)!, score: x.similarity, path: 'R1_vector' as const }));
      return hits.sort(byScoreThenId((h: MkuHit) => h.mku.id)).slice(0, n);
    },

    async lexicalMkus(q, k) {
      const n = clampInt(k, 0, 10_000);
      const terms = contentTerms(q);
      if (n === 0 || terms.length === 0) return [];
      const candidates = await driver.mkuCandidates(terms, Math.max(MIN_CANDIDATES, n * CANDIDATE_FACTOR));
      const hits = candidates
        .map((mku) => ({ mku, score: termCoverage(terms, mku.verbatim), path: 'lexical' as const }))
        .filter((h) => h.score > 0);
      return hits.sort(byScoreThenId((h: MkuHit) => h.mku.id)).slice(0, n);
    },

    async safetyMkusForConcepts(conceptIds) {
      const seeds = uniq(conceptIds);
      if (seeds.length === 0) return [];
      const rows = await driver.triggerRows(seeds, SAFETY_DEPTH);
      return hitsFromTriggers(rows, () => 'safety', (m) => m.safety_critical);
    },

    async vectorChunks(vec, k) {
      const n = clampInt(k, 0, 10_000);
      if (n === 0 || isZero(vec)) return [];
      const knn = await driver.knn('chunk', vec, n);
      const byId = new Map((await driver.chunks(knn.map((x) => x.id))).map((c) => [c.chunk_id, c]));
      return knn
        .filter((x) => byId.has(x.id))
        .map((x) => ({ chunk: byId.get(x.id)!, score: x.similarity }))
        .sort(byScoreThenId((h: { chunk: { chunk_id: string } }) => h.chunk.chunk_id))
        .slice(0, n);
    },

    async provenance(mkuIds) {
      const out = new Map<string, Provenance>();
      const ids = uniq(mkuIds);
      if (ids.length === 0) return out;
      for (const r of await driver.provenanceRows(ids)) {
        const sectionSummaries = r.section_summary ? [r.section_summary] : [];
        out.set(r.mku_id, {
          doc_id: r.doc_id,
          doc_title: r.doc_title,
          doc_url: r.doc_url,
          reco_id: r.reco_id,
          year: r.year,
          license: r.license,
          source_id: r.source_id === null || r.source_id === undefined ? null : Number(r.source_id),
          source_name: r.source_name,
          source_org: r.source_org,
          section_titles: r.section_titles,
          pages: r.chunk_page ? [r.chunk_page] : r.section_pages,
          section_summaries: sectionSummaries,
          doc_summary: r.doc_summary,
          degraded: sectionSummaries.length === 0 && !r.doc_summary,
        });
      }
      return out;
    },

    async crossRefs(mkuIds, maxHops) {
      const ids = uniq(mkuIds);
      const hops = clampInt(maxHops, 0, MAX_CROSS_REF_HOPS);
      if (ids.length === 0 || hops === 0) return [];
      const best = new Map<string, CrossRef>();
      for (const r of await driver.crossRefRows(ids, hops)) {
        const stance = r.props.stance;
        // Never trust the engine alone with LINEAGE: it must not leave the store.
        if (stance !== 'AGREE' && stance !== 'DISAGREE' && stance !== 'PARTIAL') continue;
        const key = `${r.src}\u0000${r.dst}`;
        const cur = best.get(key);
        if (!cur || r.hops < cur.hops) {
          best.set(key, { from_id: r.src, to_id: r.dst, stance, note: typeof r.props.note === 'string' ? r.props.note : null, hops: r.hops });
        }
      }
      return [...best.values()].sort((a, b) => a.hops - b.hops || a.from_id.localeCompare(b.from_id) || a.to_id.localeCompare(b.to_id));
    },

    async mkusById(ids) {
      return new Map((await driver.mkus(uniq(ids))).map((m) => [m.id, m]));
    },

    write: (batch) => driver.write(batch),
    pruneMkus: (docId, keep) => driver.pruneMkus(docId, keep),
    indexInfo: () => driver.indexInfo(),
    setIndexInfo: (info) => driver.setIndexInfo(info),
    counts: () => driver.counts(),
    close: () => driver.close(),
  };
  return store;
}
