/**
 * Splits model text at its citation markers (`[3]`, `[2, 3]`, and the padded `[ 3 ]`), the way the hub's
 * parser reads them, so each marker can become a button that opens its record. The text around markers
 * stays plain text.
 */
export type Piece = { text: string } | { refs: number[]; raw: string };

const MARKER = /\[\s*(\d{1,6}(?:\s*,\s*\d{1,6})*)\s*\]/g;

export function splitCitations(text: string): Piece[] {
  const pieces: Piece[] = [];
  let last = 0;
  for (const match of text.matchAll(MARKER)) {
    const at = match.index ?? 0;
    if (at > last) pieces.push({ text: text.slice(last, at) });
    pieces.push({ refs: match[1].split(',').map((n) => Number(n.trim())), raw: match[0] });
    last = at + match[0].length;
  }
  if (last < text.length) pieces.push({ text: text.slice(last) });
  return pieces;
}
