/**
 * The one reader of `[N]` citation markers: `[3]`, `[2, 3]`, `[2,3]`; adjacent `[2][3]` match one by one.
 *
 * Two spacings are read, named by what they are for (issue #28 kept today's behaviour of both callers):
 * - `tight` — `[3]`, `[2, 3]`: what an Answer CITES (its `citations`, the citation contract's explicit
 *   usage, In-Depth claims' citations). The contract's canonicaliser leaves `[ 3 ]` as written, so a
 *   padded form is not counted as a citation the contract would then have to keep consistent.
 * - `padded` — also `[ 3 ]`: where markers are LOCATED in text (usage sentences, claims stripped of
 *   markers for grounding, In-Depth repair), so a sloppily spaced marker never leaks into claim text.
 * Whether `[ 3 ]` should count as a citation is a product decision; until it is taken both stay pinned
 * by test/unit/answer/citations.test.ts.
 */

/** Padded reading, global: for `replace` / `matchAll` where markers are stripped or located. */
export const CITATION_MARKER = /\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]/g;
/** Tight reading, global: no blank inside the brackets' ends. */
const TIGHT_CITATION_MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

export type MarkerSpacing = 'tight' | 'padded';

/** Indices of `[N]` markers in text order, with duplicates and as written (callers deduplicate and filter). */
export function markerIndices(text: string, spacing: MarkerSpacing = 'padded'): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(spacing === 'tight' ? TIGHT_CITATION_MARKER : CITATION_MARKER)) {
    for (const part of m[1].split(',')) out.push(Number(part.trim()));
  }
  return out;
}

/** What a text cites: tight markers → positive indices in order of first appearance, deduplicated. */
export function citationMarkers(text: string): number[] {
  const seen = new Set<number>();
  const out: number[] = [];
  for (const n of markerIndices(text, 'tight')) {
    if (Number.isSafeInteger(n) && n > 0 && !seen.has(n)) {
      seen.add(n);
      out.push(n);
    }
  }
  return out;
}
