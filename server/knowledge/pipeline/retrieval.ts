/**
 * Stage 2, R1 ∪ R2 (§1.3): R1_concept (MKUs a query concept TRIGGERS directly), R1_vector (`mku_sim_topk`
 * cosine over the contextualised MKU embeddings) and R2 (MKUs TRIGGERS-reachable, through RELATED/BROADER up
 * to `intersection_multihop_depth` hops, from *both* a query concept and a patient concept — the only place
 * patient concepts meet the query). The union is a set of candidates keyed by MKU id.
 */
import type { KnowledgeStore, Mku, MkuHit } from '../store/port';
import type { ContextPath } from './types';

export interface Candidate {
  mku: Mku;
  /** R1_vector cosine (0 when the vector path did not reach it). */
  cosine: number;
  /** Query concepts that TRIGGER it (overlap = their number). */
  queryConcepts: Set<string>;
  /** Reached from both sides (R2). */
  r2: boolean;
  paths: Set<ContextPath>;
}

export interface Retrieval {
  candidates: Map<string, Candidate>;
  counts: { r1_concept: number; r1_vector: number; r2: number };
}

function candidate(map: Map<string, Candidate>, mku: Mku): Candidate {
  let c = map.get(mku.id);
  if (!c) {
    c = { mku, cosine: 0, queryConcepts: new Set(), r2: false, paths: new Set() };
    map.set(mku.id, c);
  }
  return c;
}

function ids(hits: MkuHit[]): Set<string> {
  return new Set(hits.map((h) => h.mku.id));
}

export async function retrieveCandidates(
  store: KnowledgeStore,
  input: { queryVec: Float32Array; queryConceptIds: string[]; patientConceptIds: string[]; mkuTopk: number; depth: number; vector: boolean },
): Promise<Retrieval> {
  const { queryConceptIds: q, patientConceptIds: p } = input;
  const [r1c, r1v, fromQuery, fromPatient] = await Promise.all([
    q.length ? store.mkusByConcepts(q, 0) : Promise.resolve([]),
    input.vector && input.mkuTopk > 0 ? store.vectorMkus(input.queryVec, input.mkuTopk) : Promise.resolve([]),
    q.length && p.length ? store.mkusByConcepts(q, input.depth) : Promise.resolve([]),
    q.length && p.length ? store.mkusByConcepts(p, input.depth) : Promise.resolve([]),
  ]);
  const candidates = new Map<string, Candidate>();
  for (const h of r1c) {
    const c = candidate(candidates, h.mku);
    c.paths.add('R1_concept');
    for (const id of h.concepts ?? []) if (q.includes(id)) c.queryConcepts.add(id);
  }
  for (const h of r1v) {
    const c = candidate(candidates, h.mku);
    c.paths.add('R1_vector');
    c.cosine = Math.max(c.cosine, h.score);
  }
  const patientSide = ids(fromPatient);
  const r2 = fromQuery.filter((h) => patientSide.has(h.mku.id));
  for (const h of r2) {
    const c = candidate(candidates, h.mku);
    c.paths.add('R2');
    c.r2 = true;
  }
  return { candidates, counts: { r1_concept: ids(r1c).size, r1_vector: ids(r1v).size, r2: ids(r2).size } };
}
