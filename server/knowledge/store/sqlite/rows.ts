/** Row ↔ port-type mapping for the SQLite store (JSON text columns, 0/1 booleans). */
import type { ChunkNode, Concept, ConceptKind, Mku } from '../port';

export interface MkuRow {
  id: string; verbatim: string; criteria: string; directive: string; mku_class: string | null; population_json: string;
  safety_critical: number; reviewed: number; evidence_grade: string | null; strength: string | null; lang: string;
  content_hash: string; chunk_id: string;
}

export interface ConceptRow { id: string; label: string; source: string; synonyms_json: string; kind: string }

export const MKU_COLUMNS = 'id, verbatim, criteria, directive, mku_class, population_json, safety_critical, reviewed, evidence_grade, strength, lang, content_hash, chunk_id';
export const CONCEPT_COLUMNS = 'id, label, source, synonyms_json, kind';

export function toMku(r: MkuRow): Mku {
  return {
    id: r.id, verbatim: r.verbatim, criteria: r.criteria, directive: r.directive, mku_class: r.mku_class,
    population: JSON.parse(r.population_json) as string[], safety_critical: r.safety_critical === 1, reviewed: r.reviewed === 1,
    evidence_grade: r.evidence_grade, strength: r.strength, lang: r.lang, content_hash: r.content_hash, chunk_id: r.chunk_id,
  };
}

export function toConcept(r: ConceptRow): Concept {
  return { id: r.id, label: r.label, source: r.source, synonyms: JSON.parse(r.synonyms_json) as string[], kind: r.kind as ConceptKind };
}

export function toChunk(r: { chunk_id: string; section_id: string; text: string; page: string | null }): ChunkNode {
  return { chunk_id: r.chunk_id, section_id: r.section_id, text: r.text, page: r.page };
}

/** An FTS5 MATCH expression: each folded term quoted (no query syntax gets through), OR-joined. */
export function ftsMatch(terms: string[]): string {
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
}
