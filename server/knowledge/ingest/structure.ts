/**
 * Blocks → sections → chunks. Each heading opens a section whose titles are the open heading chain (a
 * level-2 heading keeps its level-1 parent); each paragraph is one chunk with its pages, so an MKU quoted
 * from a chunk is anchored to the page(s) it was printed on. Section ids are stable: the label number
 * ("7.4") when the heading has one, else a slug of the title, so adding a section elsewhere renames nothing.
 */
import type { Block, IngestChunk, IngestSection, SectionKind } from './types';

const KIND_RULES: Array<[SectionKind, RegExp]> = [
  ['boxed_warning', /boxed warning|^warning:/iu],
  ['contraindication', /contraindicat/iu],
  ['interaction', /interaction/iu],
  ['warning', /warning|precaution/iu],
  ['population', /specific population|pregnan|lactation|nursing|renal|hepatic|pediatric|geriatric|females and males/iu],
  ['dosage', /dosage|dosing|\bdose\b|administration/iu],
];

/** The most specific title that names a kind decides ("7 DRUG INTERACTIONS › 7.4 Antibiotics" → interaction). */
export function sectionKind(titles: string[]): SectionKind {
  for (let i = titles.length - 1; i >= 0; i--) {
    for (const [kind, re] of KIND_RULES) if (re.test(titles[i])) return kind;
  }
  return 'other';
}

export function slug(s: string): string {
  return s.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/gu, '').split(/[^a-z0-9]/u).filter(Boolean).join('-').slice(0, 40) || 'x';
}

function sectionKey(title: string): string {
  if (/^(?:BOXED WARNING|WARNING:)/u.test(title)) return 'boxed';
  const n = /^(\d{1,2}(?:\.\d{1,2})?)\s/u.exec(title);
  return n ? `s${n[1]}` : slug(title);
}

export function buildSections(docId: string, docTitle: string, blocks: Block[]): IngestSection[] {
  const sections: IngestSection[] = [];
  const used = new Set<string>();
  const chain: Array<{ level: number; title: string }> = [];
  let current: IngestSection | null = null;
  let leadIn: string | null = null;

  const open = (titles: string[], key: string) => {
    let id = `${docId}.${key}`;
    for (let n = 2; used.has(id); n++) id = `${docId}.${key}-${n}`;
    used.add(id);
    current = { id, docId, titles, pages: [], kind: sectionKind(titles), chunks: [] };
    sections.push(current);
    leadIn = null;
  };

  for (const b of blocks) {
    if (b.kind === 'heading') {
      const level = b.level ?? 1;
      while (chain.length && chain[chain.length - 1].level >= level) chain.pop();
      chain.push({ level, title: b.text });
      // A Markdown/HTML document's own title heading is not a section title.
      const titles = chain.map((c) => c.title).filter((t) => t !== docTitle);
      open(titles.length ? titles : [b.text], sectionKey(b.text));
      continue;
    }
    if (!current) open([docTitle], 'intro');
    const sec = current as unknown as IngestSection;
    const chunk: IngestChunk = { chunkId: `${sec.id}.c${sec.chunks.length + 1}`, text: b.text, pages: b.pages, bullet: b.bullet ?? false, leadIn: b.bullet ? leadIn : null };
    sec.chunks.push(chunk);
    for (const p of b.pages) if (!sec.pages.includes(p)) sec.pages.push(p);
    if (!b.bullet) leadIn = b.text.endsWith(':') ? b.text : null;
  }
  return sections.filter((s) => s.chunks.length > 0);
}

/** A chunk's page anchor as the loader stores it: "9", or "8-9" across a page break; null without pages. */
export function pageLabel(pages: number[]): string | null {
  if (pages.length === 0) return null;
  const lo = Math.min(...pages);
  const hi = Math.max(...pages);
  return lo === hi ? String(lo) : `${lo}-${hi}`;
}
