/**
 * An in-memory KnowledgeStore test double for pure pipeline tests (the golden tests run on the real stores).
 * Its semantics are the port's, kept deliberately plain: concepts match when a label/synonym token occurs in
 * the text; graph hits carry the seed concepts; vectors are whatever the test sets per MKU/chunk.
 * `calls` records every read, so tests can see which stages ran (and that an aborted run stopped).
 */
import type { Concept, ConceptHit, CrossRef, KnowledgeStore, Mku, MkuHit, Provenance, ChunkHit, ChunkNode } from '../../server/knowledge/store/port';
import type { Embedder } from '../../server/knowledge/embedder/port';

export interface FakeContent {
  mkus: Mku[];
  concepts: Concept[];
  /** concept id → MKU ids it TRIGGERS directly. */
  triggers: Record<string, string[]>;
  /** concept id → related concept ids (one RELATED/BROADER hop each). */
  related?: Record<string, string[]>;
  /** Cosine the vector path gives each MKU (absent: not reached). */
  mkuCosine?: Record<string, number>;
  chunks?: Array<{ chunk: ChunkNode; score: number }>;
  provenance?: Record<string, Provenance>;
  /** Returned as is (a LINEAGE entry tests the pipeline's own filter). */
  crossRefs?: Array<Omit<CrossRef, 'stance'> & { stance: string }>;
}

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
const tokens = (s: string) => new Set(fold(s).split(/[^\p{L}\p{N}]+/u).filter(Boolean));

export function fakeMku(id: string, over: Partial<Mku> = {}): Mku {
  return { id, verbatim: `Verbatim ${id}.`, criteria: `SI ${id}`, directive: `ALORS ${id}`, mku_class: null, population: [], safety_critical: false, reviewed: true, evidence_grade: null, strength: null, lang: 'fr', content_hash: id, chunk_id: `chunk_${id}`, ...over };
}

export function fakeConcept(id: string, label: string, synonyms: string[] = []): Concept {
  return { id, label, source: 'local', synonyms, kind: 'other' };
}

export class FakeKnowledgeStore implements KnowledgeStore {
  readonly engine = 'sqlite' as const;
  readonly calls: string[] = [];
  /** Called at the start of every read (tests block or abort here). */
  onRead: (method: string) => Promise<void> | void = () => {};

  constructor(private readonly c: FakeContent) {}

  private async read(method: string): Promise<void> {
    this.calls.push(method);
    await this.onRead(method);
  }

  private mku(id: string): Mku {
    const m = this.c.mkus.find((x) => x.id === id);
    if (!m) throw new Error(`fake store: no MKU ${id}`);
    return m;
  }

  async searchConcepts(text: string, k: number): Promise<ConceptHit[]> {
    await this.read('searchConcepts');
    const t = tokens(text);
    const hits: ConceptHit[] = [];
    for (const c of this.c.concepts) {
      const names = [c.label, ...c.synonyms].map((n) => [...tokens(n)]);
      const best = Math.max(...names.map((n) => n.filter((x) => t.has(x)).length / n.length));
      if (best > 0) hits.push({ concept: c, score: best, via: ['lexical'] });
    }
    return hits.sort((a, b) => b.score - a.score || a.concept.id.localeCompare(b.concept.id)).slice(0, k);
  }

  private reach(seeds: string[], depth: number): Map<string, { hops: number; seeds: Set<string> }> {
    const out = new Map<string, { hops: number; seeds: Set<string> }>();
    for (const seed of seeds) {
      let frontier = [seed];
      const seen = new Set(frontier);
      for (let hop = 0; hop <= depth; hop++) {
        for (const cid of frontier) {
          for (const mid of this.c.triggers[cid] ?? []) {
            const cur = out.get(mid) ?? { hops: hop, seeds: new Set<string>() };
            cur.hops = Math.min(cur.hops, hop);
            cur.seeds.add(seed);
            out.set(mid, cur);
          }
        }
        frontier = frontier.flatMap((cid) => this.c.related?.[cid] ?? []).filter((x) => !seen.has(x));
        for (const x of frontier) seen.add(x);
      }
    }
    return out;
  }

  async mkusByConcepts(conceptIds: string[], depth: number): Promise<MkuHit[]> {
    await this.read('mkusByConcepts');
    return [...this.reach(conceptIds, depth)].map(([id, r]) => ({ mku: this.mku(id), score: 0.5 ** r.hops, path: r.hops === 0 ? 'R1_concept' : 'R2', concepts: [...r.seeds].sort(), hops: r.hops }));
  }

  async vectorMkus(_vec: Float32Array, k: number): Promise<MkuHit[]> {
    await this.read('vectorMkus');
    return Object.entries(this.c.mkuCosine ?? {})
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([id, score]) => ({ mku: this.mku(id), score, path: 'R1_vector' as const }));
  }

  async lexicalMkus(): Promise<MkuHit[]> {
    await this.read('lexicalMkus');
    return [];
  }

  async safetyMkusForConcepts(conceptIds: string[]): Promise<MkuHit[]> {
    await this.read('safetyMkusForConcepts');
    return [...this.reach(conceptIds, 2)].filter(([id]) => this.mku(id).safety_critical).map(([id, r]) => ({ mku: this.mku(id), score: 1, path: 'safety' as const, concepts: [...r.seeds].sort(), hops: r.hops }));
  }

  async vectorChunks(_vec: Float32Array, k: number): Promise<ChunkHit[]> {
    await this.read('vectorChunks');
    return (this.c.chunks ?? []).slice(0, k);
  }

  async provenance(mkuIds: string[]): Promise<Map<string, Provenance>> {
    await this.read('provenance');
    return new Map(mkuIds.filter((id) => this.c.provenance?.[id]).map((id) => [id, this.c.provenance![id]]));
  }

  async crossRefs(mkuIds: string[]): Promise<CrossRef[]> {
    await this.read('crossRefs');
    return (this.c.crossRefs ?? []).filter((r) => mkuIds.includes(r.from_id)) as CrossRef[];
  }

  async mkusById(ids: string[]): Promise<Map<string, Mku>> {
    await this.read('mkusById');
    return new Map(ids.filter((id) => this.c.mkus.some((m) => m.id === id)).map((id) => [id, this.mku(id)]));
  }

  async write(): Promise<{ changed: number }> {
    return { changed: 0 };
  }
  async pruneMkus(): Promise<number> {
    return 0;
  }
  async indexInfo() {
    return null;
  }
  async setIndexInfo(): Promise<void> {}
  async counts() {
    return { sources: 0, documents: 0, sections: 0, chunks: 0, mkus: this.c.mkus.length, concepts: this.c.concepts.length, edges: 0 };
  }
  async close(): Promise<void> {}
}

/** A constant embedder: the fake store ignores vectors. */
export const fakeEmbedder: Embedder = { id: 'fake-1', dimension: 2, embed: async (texts) => texts.map(() => new Float32Array([1, 0])) };

export function fakeProvenance(docId: string, over: Partial<Provenance> = {}): Provenance {
  return { doc_id: docId, doc_title: `Document ${docId}`, doc_url: `https://example.invalid/${docId}`, reco_id: null, year: 2024, license: 'test', source_id: 1, source_name: 'TEST', source_org: 'Org Test', section_titles: ['Section'], pages: ['3'], section_summaries: ['Résumé.'], doc_summary: 'Résumé doc.', degraded: false, ...over };
}
