/** `[N]` citation markers, read one way everywhere: `[3]`, `[2, 3]`, `[2,3]`; adjacent `[2][3]` match one by one. */
export const CITATION_MARKER = /\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]/g;

/** Indices cited by `[N]` markers in text order, with duplicates (callers deduplicate). */
export function markerIndices(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(CITATION_MARKER)) {
    for (const part of m[1].split(',')) out.push(Number(part.trim()));
  }
  return out;
}
