/**
 * Turns validated lines into store rows: checks ids are unique and every reference resolves within the load,
 * computes MKU ids (a supplied id that disagrees is an error) and content hashes, resolves edge `*_key`s, and
 * says what text each vector is built from. Pure: no I/O, no embedder.
 */
import type { ChunkNode, Concept, DocumentNode, Edge, Mku, SectionNode, Source } from '../store/port';
import { contentHash, mkuId } from './mku-id';
import { ContentError, type ParsedContent, type ParsedLine } from './read-files';

export interface ContentPlan {
  sources: Source[];
  documents: DocumentNode[];
  sections: SectionNode[];
  chunks: Array<{ node: ChunkNode; embedText: string }>;
  mkus: Array<{ node: Mku; docId: string; embedText: string }>;
  concepts: Array<{ node: Concept; embedText: string }>;
  edges: Edge[];
}

type V = Record<string, unknown>;
const str = (v: unknown): string => v as string;
const orNull = (v: unknown): string | null => (v === undefined || v === null ? null : String(v));

function indexUnique<T>(lines: ParsedLine[], key: (v: V, l: ParsedLine) => string, what: string, make: (l: ParsedLine) => T): Map<string, { line: ParsedLine; node: T }> {
  const out = new Map<string, { line: ParsedLine; node: T }>();
  for (const l of lines) {
    const k = key(l.value, l);
    const prev = out.get(k);
    if (prev) throw new ContentError(`duplicate ${what} '${k}' (first at ${prev.line.file}:${prev.line.line})`, l.file, l.line);
    out.set(k, { line: l, node: make(l) });
  }
  return out;
}

function requireRef(map: Map<string, unknown>, id: string, what: string, l: ParsedLine): void {
  if (!map.has(id)) throw new ContentError(`unknown ${what} '${id}'`, l.file, l.line);
}

/** "doc title › section titles › verbatim", as Locus builds its MKU context embeddings. */
export function mkuContextText(docTitle: string, sectionTitles: string[], verbatim: string): string {
  return [docTitle, ...sectionTitles, verbatim].filter((s) => s.trim() !== '').join(' › ');
}

export function assembleContent(parsed: ParsedContent): ContentPlan {
  const sources = indexUnique(parsed.sources, (v) => String(v.source_id), 'source_id', (l): Source => ({ source_id: l.value.source_id as number, name: str(l.value.name), org: str(l.value.org) }));
  const documents = indexUnique(parsed.documents, (v) => str(v.doc_id), 'doc_id', (l): DocumentNode => {
    const v = l.value;
    requireRef(sources, String(v.source_id), 'source_id', l);
    return { doc_id: str(v.doc_id), title: str(v.title), url: orNull(v.url), year: (v.year as number | null) ?? null, reco_id: orNull(v.reco_id), source_id: v.source_id as number, summary: orNull(v.summary), license: orNull(v.license), lang: str(v.lang) };
  });
  const sections = indexUnique(parsed.sections, (v) => str(v.id), 'section id', (l): SectionNode => {
    const v = l.value;
    requireRef(documents, str(v.doc_id), 'doc_id', l);
    return { id: str(v.id), doc_id: str(v.doc_id), titles: v.titles as string[], pages: (v.pages as Array<string | number>).map(String), summary: orNull(v.summary) };
  });
  const chunks = indexUnique(parsed.chunks, (v) => str(v.chunk_id), 'chunk_id', (l) => {
    const v = l.value;
    requireRef(sections, str(v.section_id), 'section_id', l);
    const node: ChunkNode = { chunk_id: str(v.chunk_id), section_id: str(v.section_id), text: str(v.text), page: orNull(v.page) };
    return { node, embedText: node.text };
  });
  const concepts = indexUnique(parsed.concepts, (v) => str(v.id), 'concept id', (l) => {
    const v = l.value;
    const node: Concept = { id: str(v.id), label: str(v.label), source: str(v.source), synonyms: v.synonyms as string[], kind: v.kind as Concept['kind'] };
    return { node, embedText: [node.label, ...node.synonyms].join(' ; ') };
  });

  const mkuKeys = new Map<string, string>();
  const mkus = indexUnique(parsed.mkus, (_v, l) => computeId(l, chunks, sections), 'MKU (same document and verbatim)', (l) => {
    const v = l.value;
    const chunk = chunks.get(str(v.chunk_id))!.node.node;
    const section = sections.get(chunk.section_id)!.node;
    const doc = documents.get(section.doc_id)!.node;
    const id = mkuId(doc.doc_id, str(v.verbatim));
    const content = {
      verbatim: str(v.verbatim), criteria: str(v.criteria), directive: str(v.directive), mku_class: orNull(v.mku_class),
      population: v.population as string[], safety_critical: v.safety_critical as boolean, reviewed: v.reviewed as boolean,
      evidence_grade: orNull(v.evidence_grade), strength: orNull(v.strength), lang: typeof v.lang === 'string' ? v.lang : doc.lang, chunk_id: chunk.chunk_id,
    };
    if (typeof v.key === 'string') {
      if (mkuKeys.has(v.key)) throw new ContentError(`duplicate MKU key '${v.key}'`, l.file, l.line);
      mkuKeys.set(v.key, id);
    }
    const node: Mku = { id, ...content, content_hash: contentHash({ id, ...content }) };
    return { node, docId: doc.doc_id, embedText: mkuContextText(doc.title, section.titles, node.verbatim) };
  });

  const edges = indexUnique(parsed.edges, (v) => `${str(v.src ?? `key:${str(v.src_key)}`)} ${str(v.rel)} ${str(v.dst ?? `key:${str(v.dst_key)}`)}`, 'edge', (l): Edge => {
    const v = l.value;
    const end = (idField: string, keyField: string): string => {
      if (typeof v[idField] === 'string') return v[idField] as string;
      const resolved = mkuKeys.get(str(v[keyField]));
      if (!resolved) throw new ContentError(`unknown MKU key '${str(v[keyField])}' in ${keyField}`, l.file, l.line);
      return resolved;
    };
    const edge: Edge = { src: end('src', 'src_key'), rel: v.rel as Edge['rel'], dst: end('dst', 'dst_key'), props: v.props as Record<string, unknown> };
    const isMku = (x: string) => mkus.has(x);
    const isConcept = (x: string) => concepts.has(x);
    const ok = edge.rel === 'TRIGGERS' ? isConcept(edge.src) && isMku(edge.dst)
      : edge.rel === 'CROSS_REF' ? isMku(edge.src) && isMku(edge.dst)
        : isConcept(edge.src) && isConcept(edge.dst);
    if (!ok) {
      const want = edge.rel === 'TRIGGERS' ? 'concept → MKU' : edge.rel === 'CROSS_REF' ? 'MKU → MKU' : 'concept → concept';
      throw new ContentError(`${edge.rel} must link ${want} loaded in the same set; '${edge.src}' → '${edge.dst}' does not`, l.file, l.line);
    }
    if (edge.src === edge.dst) throw new ContentError(`an edge may not link '${edge.src}' to itself`, l.file, l.line);
    return edge;
  });

  return {
    sources: [...sources.values()].map((x) => x.node),
    documents: [...documents.values()].map((x) => x.node),
    sections: [...sections.values()].map((x) => x.node),
    chunks: [...chunks.values()].map((x) => x.node),
    mkus: [...mkus.values()].map((x) => x.node),
    concepts: [...concepts.values()].map((x) => x.node),
    edges: [...edges.values()].map((x) => x.node),
  };
}

/** The MKU's content-addressed id, after checking its chunk resolves and any supplied id/doc_id agrees. */
function computeId(l: ParsedLine, chunks: Map<string, { line: ParsedLine; node: { node: ChunkNode } }>, sections: Map<string, { node: SectionNode }>): string {
  const v = l.value;
  requireRef(chunks, str(v.chunk_id), 'chunk_id', l);
  const docId = sections.get(chunks.get(str(v.chunk_id))!.node.node.section_id)!.node.doc_id;
  if (typeof v.doc_id === 'string' && v.doc_id !== docId) throw new ContentError(`doc_id '${v.doc_id}' disagrees with its chunk's document '${docId}'`, l.file, l.line);
  const id = mkuId(docId, str(v.verbatim));
  if (typeof v.id === 'string' && v.id !== id) throw new ContentError(`supplied id '${v.id}' disagrees with the content-addressed id '${id}' (mku_<doc_id>_<12 hex of sha256(NFC verbatim)>)`, l.file, l.line);
  return id;
}
