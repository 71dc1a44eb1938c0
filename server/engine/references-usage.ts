/** Where each cited index is used in an Answer or In-Depth (§8 `usage`), and the order references appear in. */
import { CITATION_MARKER, markerIndices, type ReferenceUsage, type UsageLocation, type TableBlock } from '../answer';

/**
 * Sentence boundary (§8): `.!?` followed by whitespace, or a newline. Newlines are split on first
 * and the pieces trimmed: a `\s*\n\s*` pattern rescans a long blank run from every position
 * (quadratic — 80,000 spaces in a model answer blocked the hub for seconds).
 */
const AFTER_PUNCTUATION = /(?<=[.!?])\s+/;


const NON_BLANK = /\S/g;

/**
 * The lines of `text` (split at `\n`) that hold a non-blank character, found by jumping from one
 * non-blank character to the next: a model reply of tens of thousands of blank lines is skipped in
 * one native scan instead of being split, trimmed and filtered line by line.
 */
function* nonBlankLines(text: string): Generator<string> {
  let from = 0;
  while (from < text.length) {
    NON_BLANK.lastIndex = from;
    const hit = NON_BLANK.exec(text);
    if (!hit) return;
    const start = text.lastIndexOf('\n', hit.index) + 1;
    const newline = text.indexOf('\n', hit.index);
    const end = newline < 0 ? text.length : newline;
    yield text.slice(start, end);
    from = end + 1;
  }
}

/** Sentences of a text; the whole text when it does not split. */
export function splitSentences(text: string): string[] {
  const pieces: string[] = [];
  for (const line of nonBlankLines(text)) {
    for (const part of line.split(AFTER_PUNCTUATION)) {
      const s = part.trim();
      if (s !== '') pieces.push(s);
    }
  }
  const out: string[] = [];
  for (const piece of pieces) {
    // "…71 kg. [2]" splits the marker off its sentence; a piece that is only markers and
    // punctuation belongs to the sentence before it, or the citation would lose its claim.
    if (out.length > 0 && piece.replace(CITATION_MARKER, '').replace(/[\s.!?;,]/g, '') === '') {
      out[out.length - 1] = `${out[out.length - 1]} ${piece}`;
    } else {
      out.push(piece);
    }
  }
  return out.length > 0 ? out : [text];
}

/** For each index cited in `text`, the sentence(s) containing it joined by a space, in first-citation order. */
function sentencesByIndex(text: string): Map<number, string> {
  const found = new Map<number, string[]>();
  for (const sentence of splitSentences(text)) {
    for (const index of new Set(markerIndices(sentence))) {
      const list = found.get(index) ?? [];
      list.push(sentence);
      found.set(index, list);
    }
  }
  return new Map([...found].map(([index, sentences]) => [index, sentences.join(' ')]));
}

function addUsage(usages: Map<number, ReferenceUsage[]>, index: number, usage: ReferenceUsage | null): void {
  const list = usages.get(index) ?? [];
  if (usage && !list.some((u) => u.location === usage.location && u.text === usage.text && u.path === usage.path)) {
    list.push(usage);
  }
  usages.set(index, list);
}

/** Cell keys in column order, then any keys the columns do not name (a withheld block may carry them). */
function cellKeys(block: TableBlock, cells: Record<string, unknown>): string[] {
  const keys = (block.columns ?? []).map((c) => c.key).filter((k) => k in cells);
  return [...keys, ...Object.keys(cells).filter((k) => !keys.includes(k))];
}

/**
 * Usages of every cited index in an Answer, in §8 order: first appearance across structured
 * citations, then table refs, then inline markers, deduplicated. Prose usages carry the
 * sentence(s) with the marker; cells carry their text and path; a structured-only citation
 * (no marker, no cell) uses the whole answer. In `answer_review_draft` mode cells keep their
 * path but share the draft location, so the draft never counts as shipped usage (§7.4).
 */
export function answerUsages(
  draft: { answer: string; citations: number[]; blocks: TableBlock[] },
  location: 'answer' | 'answer_review_draft',
): Map<number, ReferenceUsage[]> {
  const cellLocation: UsageLocation = location === 'answer' ? 'block' : location;
  const prose = sentencesByIndex(draft.answer);
  const cells: Array<[number, ReferenceUsage]> = [];
  (draft.blocks ?? []).forEach((block, i) => {
    (block.rows ?? []).forEach((row, j) => {
      const rowCells = row.cells ?? {};
      for (const key of cellKeys(block, rowCells)) {
        const cell = rowCells[key];
        for (const index of cell?.refs ?? []) {
          cells.push([index, { location: cellLocation, text: cell.text, path: `blocks[${i}].rows[${j}].cells.${key}` }]);
        }
      }
    });
  });

  // Insertion order of `order` is the reference order; usages are attached afterwards.
  const order = new Map<number, ReferenceUsage[]>();
  for (const index of draft.citations ?? []) addUsage(order, index, null);
  for (const [index] of cells) addUsage(order, index, null);
  for (const index of prose.keys()) addUsage(order, index, null);

  for (const [index, text] of prose) addUsage(order, index, { location, text });
  for (const [index, usage] of cells) addUsage(order, index, usage);
  for (const list of order.values()) {
    if (list.length === 0) list.push({ location, text: draft.answer });
  }
  return order;
}

/** Usages of every index cited by In-Depth claims: per claim, the sentence(s) containing the marker. */
export function claimUsages(claims: readonly string[], location: 'indepth' | 'indepth_review_draft'): Map<number, ReferenceUsage[]> {
  const usages = new Map<number, ReferenceUsage[]>();
  for (const claim of claims) {
    for (const [index, text] of sentencesByIndex(claim)) addUsage(usages, index, { location, text });
  }
  return usages;
}
