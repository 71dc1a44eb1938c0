/**
 * In-Depth review that flags, never drops (§7.7 Target, decision 9): the reviewer's `drop` list names
 * claims to mark, and its `issues` text supplies the short note shown after each marked claim. The
 * field keeps its [REF] name `drop` so existing review prompts and models keep working.
 */
import { extractJsonObject } from './json';

export interface InDepthVerdict {
  /** Flagged claim numbers (1-based), in range, unique, ascending. */
  drop: number[];
  issues: string;
}

export const INDEPTH_VERDICT_RESPONSE_FORMAT: Record<string, unknown> = {
  type: 'json_schema',
  json_schema: {
    name: 'indepth_verdict',
    schema: {
      type: 'object',
      required: ['drop'],
      properties: { drop: { type: 'array', items: { type: 'integer' } }, issues: { type: 'string' } },
    },
  },
};

export const DEFAULT_FLAG_NOTE = 'The reviewer questioned this point.';
const NOTE_MAX = 240;

/**
 * null when the reply holds no object or `drop` is not a list. Numbers outside 1..claimCount are
 * discarded rather than moved to the nearest end: a reviewer's "claim 5" of three must not mark claim 3.
 */
export function parseInDepthVerdict(content: string, claimCount: number): InDepthVerdict | null {
  const obj = extractJsonObject(content);
  if (!obj || !Array.isArray(obj.drop)) return null;
  const drop = [...new Set(obj.drop.filter((n): n is number => Number.isInteger(n) && n >= 1 && n <= claimCount))].sort((a, b) => a - b);
  // Some models send one string per flagged claim; joining keeps their notes.
  const issues = typeof obj.issues === 'string' ? obj.issues : Array.isArray(obj.issues) ? obj.issues.filter((s) => typeof s === 'string').join('\n') : '';
  return { drop, issues };
}

/** What may follow a claim number: `2:`, `2)`, `2.` (not `2.5`), `2 -`. */
const SEP = String.raw`(?::|\)|\.(?!\d)|-|–|—)`;
/**
 * `2: …`, `2. …`, `2) …`, `#2 …`, optionally bulleted; after the word `Claim`/`Point` the separator
 * is optional (`Claim 2 - …`, `Claim 2 states …`). A bare `2.5 kg …` is not claim 2.
 */
const NUMBERED_HEAD = new RegExp(String.raw`^\s*(?:[-*•]\s*)?(?:(?:claim|point)\s*#?(\d+)(?:\s*${SEP})?|#?(\d+)\s*${SEP})`, 'i');
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/**
 * Claim number and note of a numbered line, else null. The note is cut off in code: the former
 * `…\s*${SEP}?\s*(.*)$` let `\d+`, two `\s*` and `.*` share characters, so a note with a line
 * break in it (which `.*$` refuses) retried every split (cubic: 4,000 spaces took 26 s). Same results.
 */
function numberedLine(part: string): { n: number; text: string } | null {
  const m = NUMBERED_HEAD.exec(part);
  if (!m) return null;
  const note = part.slice(m[0].length).trimStart();
  if (LINE_BREAK.test(note)) return null;
  return { n: Number(m[1] ?? m[2]), text: note.trimEnd() };
}
/** Where a `; `-joined issues line starts the next claim's note. */
const NEXT_CLAIM = new RegExp(String.raw`\r?\n|;\s*(?=(?:(?:claim|point)\s*)?#?\d+\s*${SEP})`, 'i');

function truncate(text: string): string {
  const s = text.replace(/\s+/g, ' ').trim();
  return s.length <= NOTE_MAX ? s : `${s.slice(0, NOTE_MAX - 1).trimEnd()}…`;
}

/**
 * Flagged claim → short note. Lines (and `; `-separated parts that start a new claim number) are
 * matched to flagged claims by their leading number; a flagged claim without one gets the default.
 */
export function flagNotes(verdict: InDepthVerdict): Map<number, string> {
  const flagged = new Set(verdict.drop);
  const texts = new Map<number, string[]>();
  for (const part of verdict.issues.split(NEXT_CLAIM)) {
    const line = numberedLine(part);
    if (!line) continue;
    const { n, text } = line;
    if (!flagged.has(n) || text === '') continue;
    texts.set(n, [...(texts.get(n) ?? []), text]);
  }
  const notes = new Map<number, string>();
  for (const n of verdict.drop) notes.set(n, truncate(texts.get(n)?.join(' ') ?? DEFAULT_FLAG_NOTE));
  return notes;
}

/** `1. claim\n2. claim`: the numbering the reviewer's `drop` refers to. */
export function numberedClaims(claims: readonly string[]): string {
  return claims.map((c, i) => `${i + 1}. ${c.trim()}`).join('\n');
}
