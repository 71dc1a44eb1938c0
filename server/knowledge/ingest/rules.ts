/**
 * The `rules` extractor: deterministic, sentence-level verbatim units of the recommendation-bearing
 * sections (boxed warning, dosage, contraindications, warnings, interactions, specific populations).
 * A sentence is kept when it tells the reader to do or avoid something (directive cue), and always in a
 * boxed warning or contraindications section. Criteria/directive: split at "If/When/In patients …, …";
 * a list item takes its lead-in ("… are contraindicated in:") as directive; otherwise the section title is
 * the criteria and the sentence the directive.
 */
import { isSafetyCritical } from './safety';
import { hasDirectiveCue, splitCriteriaDirective, splitSentences } from './text';
import type { ExtractedUnit, Extraction, IngestChunk, IngestSection } from './types';

const ALWAYS_KEEP = new Set(['boxed_warning', 'contraindication']);

/** The section's own title without its label number ("7.4 Antibiotics and Antifungals" → "Antibiotics and Antifungals"). */
export function bareTitle(section: IngestSection): string {
  const t = section.titles[section.titles.length - 1] ?? '';
  return t.replace(/^\d{1,2}(?:\.\d{1,2})?\s+/u, '');
}

export function unitFor(section: IngestSection, chunk: IngestChunk, sentence: string): ExtractedUnit {
  const split = splitCriteriaDirective(sentence);
  const lead = chunk.bullet && chunk.leadIn ? chunk.leadIn.replace(/:$/u, '').trim() : null;
  const { criteria, directive } = split ?? (lead ? { criteria: sentence, directive: lead } : { criteria: bareTitle(section), directive: sentence });
  return { chunkId: chunk.chunkId, verbatim: sentence, criteria, directive, safetyCritical: isSafetyCritical(section.kind, sentence), mkuClass: section.kind };
}

export function rulesExtract(sections: IngestSection[]): Extraction {
  const units: ExtractedUnit[] = [];
  const rejected: Record<string, number> = {};
  const seen = new Set<string>();
  const reject = (why: string) => void (rejected[why] = (rejected[why] ?? 0) + 1);
  for (const section of sections) {
    if (section.kind === 'other') continue;
    for (const chunk of section.chunks) {
      for (const sentence of splitSentences(chunk.text)) {
        if (sentence.endsWith(':')) continue;
        const listItem = chunk.bullet && chunk.leadIn !== null;
        if (!ALWAYS_KEEP.has(section.kind) && !hasDirectiveCue(sentence)) continue;
        if (!listItem && sentence.split(/\s+/u).length < 4) continue;
        // One MKU per quote and document (its id is the quote's hash).
        const key = `${section.docId}\u0000${sentence.normalize('NFC')}`;
        if (seen.has(key)) {
          reject('duplicate quote');
          continue;
        }
        seen.add(key);
        units.push(unitFor(section, chunk, sentence));
      }
    }
  }
  return { units, rejected };
}
