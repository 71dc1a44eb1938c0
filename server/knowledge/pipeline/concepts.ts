/**
 * Stage 1, concept mapping (§1.3): the query resolves to concepts (FTS on labels and synonyms plus concept
 * vectors, `concept_sim_topk`), and every safety-signal fact of the patient (allergies, treatments, terrain:
 * history and active problems) resolves to at most a few concepts, eagerly. Patient concepts are used only
 * intersected with the query (R2), except by the safety sweep.
 */
import type { ConceptHit, KnowledgeStore } from '../store/port';
import type { Embedder } from '../embedder/port';
import type { ConceptRef, PatientContext } from './types';

export type PatientFactKind = 'allergy' | 'treatment' | 'history' | 'problem';

export interface PatientFact {
  kind: PatientFactKind;
  text: string;
}

export interface ConceptMapping {
  queryVec: Float32Array;
  query: ConceptHit[];
  patient: ConceptHit[];
  /** Patient concept id → the facts that resolved to it (conflicts name them). */
  factsByConcept: Map<string, PatientFact[]>;
}

/**
 * A concept hit below this score is noise: every text has *some* nearest concept vector, and a lexical hit
 * on a minority of a name's words (often a stop word: the « de » of « diabète de type 2 ») names nothing.
 * A whole name matched scores 1; at least half of one, or a close vector, passes.
 */
export const MIN_CONCEPT_SCORE = 0.45;
/** Concepts kept per patient fact: a fact names one thing, rarely more. */
export const CONCEPTS_PER_FACT = 2;

export function acceptConcept(hit: ConceptHit): boolean {
  return hit.score >= MIN_CONCEPT_SCORE;
}

/** The patient's safety-signal facts in a fixed order (sex and age map to no concept on their own). */
export function patientFacts(p: PatientContext): PatientFact[] {
  const facts: PatientFact[] = [];
  const add = (kind: PatientFactKind, list: string[] | null | undefined) => {
    for (const t of list ?? []) if (typeof t === 'string' && t.trim()) facts.push({ kind, text: t.trim() });
  };
  add('allergy', p.allergies);
  add('treatment', p.current_treatments);
  add('history', p.history);
  add('problem', p.active_problems);
  return facts;
}

export function toConceptRef(hit: ConceptHit): ConceptRef {
  return { id: hit.concept.id, label: hit.concept.label, source: hit.concept.source };
}

function dedupe(hits: ConceptHit[]): ConceptHit[] {
  const best = new Map<string, ConceptHit>();
  for (const h of hits) {
    const seen = best.get(h.concept.id);
    if (!seen || h.score > seen.score) best.set(h.concept.id, h);
  }
  return [...best.values()];
}

export async function mapConcepts(
  deps: { store: KnowledgeStore; embedder: Embedder },
  query: string,
  patient: PatientContext,
  topk: number,
  signal?: AbortSignal,
): Promise<ConceptMapping> {
  const facts = patientFacts(patient);
  // One embedding call for the query and every fact.
  const vecs = await deps.embedder.embed([query, ...facts.map((f) => f.text)], signal);
  const queryVec = vecs[0];
  const queryHits = topk > 0 ? (await deps.store.searchConcepts(query, topk, queryVec)).filter(acceptConcept) : [];
  const factsByConcept = new Map<string, PatientFact[]>();
  const patientHits: ConceptHit[] = [];
  for (let i = 0; i < facts.length; i++) {
    signal?.throwIfAborted();
    const hits = (await deps.store.searchConcepts(facts[i].text, CONCEPTS_PER_FACT, vecs[i + 1])).filter(acceptConcept);
    for (const h of hits) {
      patientHits.push(h);
      factsByConcept.set(h.concept.id, [...(factsByConcept.get(h.concept.id) ?? []), facts[i]]);
    }
  }
  return { queryVec, query: dedupe(queryHits), patient: dedupe(patientHits), factsByConcept };
}
