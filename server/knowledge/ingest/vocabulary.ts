/**
 * The curated concept vocabulary (a YAML file we write, e.g. data/knowledge/demo-concepts.yaml) and the
 * deterministic concept finder: a concept TRIGGERS an MKU when its label or a synonym occurs in the MKU's
 * own verbatim as a whole word (case-insensitive, plural "s"/"es" allowed) — in the criteria part when the
 * sentence was split, else in the directive part.
 */
import fs from 'node:fs';
import YAML from 'yaml';
import type { Concept, ConceptKind } from '../store/port';

export interface VocabularyConcept extends Concept {
  broader: string[];
}

const KINDS: ConceptKind[] = ['drug', 'condition', 'population', 'allergy', 'procedure', 'other'];

export function readVocabulary(file: string): VocabularyConcept[] {
  const doc = YAML.parse(fs.readFileSync(file, 'utf8')) as { concepts?: unknown };
  if (!doc || !Array.isArray(doc.concepts)) throw new Error(`${file}: expected a 'concepts' list`);
  const out = doc.concepts.map((raw, i): VocabularyConcept => {
    const c = raw as Record<string, unknown>;
    if (typeof c.id !== 'string' || typeof c.label !== 'string') throw new Error(`${file}: concept #${i + 1} needs an id and a label`);
    const kind = (c.kind ?? 'other') as ConceptKind;
    if (!KINDS.includes(kind)) throw new Error(`${file}: concept '${c.id}' has an unknown kind '${String(c.kind)}'`);
    const strings = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
    return { id: c.id, label: c.label, source: typeof c.source === 'string' ? c.source : 'local', synonyms: strings(c.synonyms), kind, broader: strings(c.broader) };
  });
  const ids = new Set(out.map((c) => c.id));
  for (const c of out) for (const b of c.broader) if (!ids.has(b)) throw new Error(`${file}: concept '${c.id}' is broader-linked to unknown '${b}'`);
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

export interface ConceptFinder {
  /** The vocabulary concept ids named in the text, sorted. */
  find(text: string): string[];
}

export function conceptFinder(vocabulary: VocabularyConcept[]): ConceptFinder {
  const patterns = vocabulary.map((c) => ({
    id: c.id,
    re: new RegExp(`(?<![\\p{L}\\p{N}])(?:${[c.label, ...c.synonyms].map((t) => escape(t).replace(/\s+/gu, '\\s+')).join('|')})(?:s|es)?(?![\\p{L}\\p{N}])`, 'iu'),
  }));
  return {
    find(text) {
      // PDF text uses typographic hyphens (U+2010–U+2015, U+2212): "β‑lactam" names the same term as "β-lactam".
      const plain = text.replace(/[\u2010-\u2015\u2212]/gu, '-');
      return patterns.filter((p) => p.re.test(plain)).map((p) => p.id);
    },
  };
}

/** TRIGGERS roles for one unit: a concept in the criteria span is a criteria trigger, else a directive one. */
export function triggerRoles(finder: ConceptFinder, verbatim: string, criteria: string): Array<{ concept: string; role: 'criteria' | 'directive' }> {
  const inCriteria = verbatim.includes(criteria) && criteria !== verbatim ? new Set(finder.find(criteria)) : new Set<string>();
  return finder.find(verbatim).map((concept) => ({ concept, role: inCriteria.has(concept) ? 'criteria' : 'directive' }));
}
