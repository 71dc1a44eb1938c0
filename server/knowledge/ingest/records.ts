/**
 * Ingested documents → the loader's JSONL records (sources, documents, sections, chunks, mkus, concepts,
 * edges), sorted by id with a fixed key order so the same inputs give the same bytes. TRIGGERS edges come
 * from the vocabulary concepts named in each verbatim; CROSS_REF candidates are described in crossref.ts.
 */
import { createHash } from 'node:crypto';
import { mkuId } from '../loader/mku-id';
import type { ContentKind } from '../loader/schemas';
import { crossRefCandidates } from './crossref';
import type { DocProvenance } from './provenance';
import { pageLabel } from './structure';
import type { ExtractedUnit, IngestSection, SourceDoc } from './types';
import { conceptFinder, triggerRoles, type VocabularyConcept } from './vocabulary';

export type Records = Record<ContentKind, Array<Record<string, unknown>>>;

export interface IngestedDoc {
  doc: SourceDoc;
  sections: IngestSection[];
  units: ExtractedUnit[];
  provenance: DocProvenance | null;
}

/** A stable positive integer id for an organisation (adding a document never renumbers another's source). */
export function sourceIdOf(org: string): number {
  return parseInt(createHash('sha256').update(org, 'utf8').digest('hex').slice(0, 7), 16);
}

const byKey = (key: (r: Record<string, unknown>) => string) => (a: Record<string, unknown>, b: Record<string, unknown>) => {
  const x = key(a);
  const y = key(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

export function buildRecords(docs: IngestedDoc[], vocabulary: VocabularyConcept[], opts: { reviewed: boolean; lang: string }): Records {
  const finder = conceptFinder(vocabulary);
  const population = new Map(vocabulary.filter((c) => c.kind === 'population').map((c) => [c.id, c.label]));
  const sources = new Map<number, Record<string, unknown>>();
  const out: Records = { sources: [], documents: [], sections: [], chunks: [], mkus: [], concepts: [], edges: [] };
  const mkuConcepts = new Map<string, { docId: string; concepts: string[]; safety: boolean }>();

  for (const { doc, sections, units, provenance: p } of docs) {
    const org = p?.org ?? 'Local documents (no provenance record)';
    const sourceId = sourceIdOf(org);
    sources.set(sourceId, { source_id: sourceId, name: p?.sourceName ?? 'local', org });
    out.documents.push({ doc_id: doc.docId, title: p?.title ?? doc.title, url: p?.url ?? null, year: p?.year ?? null, reco_id: null, source_id: sourceId, summary: null, license: p?.license ?? null, lang: opts.lang });
    for (const s of sections) {
      out.sections.push({ id: s.id, doc_id: doc.docId, titles: s.titles, pages: [...s.pages].sort((a, b) => a - b).map(String), summary: null });
      for (const c of s.chunks) out.chunks.push({ chunk_id: c.chunkId, section_id: s.id, text: c.text, page: pageLabel(c.pages) });
    }
    for (const u of units) {
      const id = mkuId(doc.docId, u.verbatim);
      const triggers = triggerRoles(finder, u.verbatim, u.criteria);
      out.mkus.push({
        id, doc_id: doc.docId, chunk_id: u.chunkId, verbatim: u.verbatim, criteria: u.criteria, directive: u.directive, mku_class: u.mkuClass,
        population: triggers.filter((t) => population.has(t.concept)).map((t) => population.get(t.concept)!),
        safety_critical: u.safetyCritical, reviewed: opts.reviewed, evidence_grade: null, strength: null, lang: opts.lang,
      });
      for (const t of triggers) out.edges.push({ src: t.concept, rel: 'TRIGGERS', dst: id, props: { role: t.role, weight: 1 } });
      mkuConcepts.set(id, { docId: doc.docId, concepts: triggers.map((t) => t.concept), safety: u.safetyCritical });
    }
  }
  out.sources = [...sources.values()];
  out.concepts = vocabulary.map((c) => ({ id: c.id, label: c.label, source: c.source, synonyms: c.synonyms, kind: c.kind }));
  for (const c of vocabulary) for (const b of c.broader) out.edges.push({ src: c.id, rel: 'BROADER', dst: b, props: {} });
  const docDrugs = new Map(docs.map(({ doc, provenance }) => [doc.docId, finder.find(provenance?.title ?? doc.title).filter((id) => vocabulary.find((v) => v.id === id)?.kind === 'drug')]));
  out.edges.push(...crossRefCandidates(mkuConcepts, docDrugs, vocabulary));

  out.sources.sort(byKey((r) => String(r.source_id).padStart(12, '0')));
  out.documents.sort(byKey((r) => String(r.doc_id)));
  out.sections.sort(byKey((r) => String(r.id)));
  out.chunks.sort(byKey((r) => String(r.chunk_id)));
  out.mkus.sort(byKey((r) => String(r.id)));
  out.edges.sort(byKey((r) => `${String(r.rel)}\u0000${String(r.src)}\u0000${String(r.dst)}`));
  return out;
}

/** One JSONL file's bytes: a header comment, then one record per line. */
export function jsonlBytes(records: Array<Record<string, unknown>>, header: string): string {
  return [`// ${header}`, ...records.map((r) => JSON.stringify(r))].join('\n') + '\n';
}
