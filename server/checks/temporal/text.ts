/**
 * Text helpers for the temporal Answer gate (§6.3): sentence and clause splitting with offsets, ISO
 * date finding, blanking (dates and citation markers become spaces so offsets never move), and the
 * small negation helpers the checks share. Pure string functions; no facts, no clock.
 */

/** A slice of a larger text that remembers where it started, so spans map back to the original. */
export interface Piece {
  text: string;
  start: number;
}

export interface IsoDate {
  iso: string;
  start: number;
  end: number;
}

const ISO_DATE = /(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?![\w-])/g;
/** `[5]`, `[5][6]`, `[5, 6]`: citation markers carry numbers that are never measurements. */
const CITATION = /\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]/g;
const DATE_ID = /\bD\d{4}_\d{2}_\d{2}\b/g;
/** Abbreviations whose full stop does not end a sentence. */
const ABBREVIATION = /\b(?:e\.g|i\.e|approx|vs|dr|ca|cf|etc)\.$/i;
/**
 * Where one claim ends and an unrelated one begins inside a sentence. Commas are deliberately not
 * boundaries: "Weight, measured monthly, decreased" is one claim.
 */
const CLAUSE_BREAK = /;|,\s+(?:and|but|then|whereas|while|although|though|however|after|before)\b|\s+(?:but|whereas|while|although|though|however|and then|followed by)\s+|,?\s+then\s+/gi;
const NEGATOR = /\b(?:no|not|never|none|nothing|neither|nor|without|cannot)\b|n't\b/i;

/** True for a real calendar date `YYYY-MM-DD` (rejects `2026-02-30`). */
export function isCalendarDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** Exact, valid ISO calendar dates in order of appearance (malformed ones are date_format's job). */
export function findIsoDates(text: string): IsoDate[] {
  const out: IsoDate[] = [];
  for (const m of text.matchAll(ISO_DATE)) {
    if (isCalendarDate(m[0])) out.push({ iso: m[0], start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** Replaces each span with spaces of the same length, so every other offset stays valid. */
export function blankSpans(text: string, spans: ReadonlyArray<{ start: number; end: number }>): string {
  let out = text;
  for (const s of spans) out = out.slice(0, s.start) + ' '.repeat(s.end - s.start) + out.slice(s.end);
  return out;
}

/** Citation markers and exposed date ids blanked: what remains can be read for measurements. */
export function blankMarkers(text: string): string {
  return text.replace(CITATION, (m) => ' '.repeat(m.length)).replace(DATE_ID, (m) => ' '.repeat(m.length));
}

/** Sentences with offsets: lines first (table rows, bullets), then `. ! ?` followed by a capital. */
export function splitSentences(text: string): Piece[] {
  const out: Piece[] = [];
  for (const line of text.matchAll(/[^\n]+/g)) {
    let from = 0;
    for (const m of line[0].matchAll(/[.!?](?=\s+["'(\[]?[A-Z])/g)) {
      const upTo = m.index + 1;
      if (ABBREVIATION.test(line[0].slice(Math.max(0, upTo - 8), upTo))) continue;
      pushPiece(out, line[0].slice(from, upTo), line.index + from);
      from = upTo;
    }
    pushPiece(out, line[0].slice(from), line.index + from);
  }
  return out;
}

/** Clauses of one piece (offsets stay in the piece's coordinate system). */
export function splitClauses(piece: Piece): Piece[] {
  const out: Piece[] = [];
  let from = 0;
  for (const m of piece.text.matchAll(CLAUSE_BREAK)) {
    pushPiece(out, piece.text.slice(from, m.index), piece.start + from);
    from = m.index + m[0].length;
  }
  pushPiece(out, piece.text.slice(from), piece.start + from);
  return out;
}

function pushPiece(out: Piece[], text: string, start: number): void {
  const lead = text.length - text.trimStart().length;
  const trimmed = text.trim();
  if (trimmed) out.push({ text: trimmed, start: start + lead });
}

/** The last `n` words (letters, digits, apostrophes) before `at`. */
export function wordsBefore(text: string, at: number, n: number): string[] {
  const words = text.slice(0, at).match(/[\p{L}\p{N}'’~<>≤≥≈]+/gu) ?? [];
  return words.slice(-n).map((w) => w.toLowerCase());
}

/** The first `n` words after `at`. */
export function wordsAfter(text: string, at: number, n: number): string[] {
  return (text.slice(at).match(/[\p{L}\p{N}'’]+/gu) ?? []).slice(0, n).map((w) => w.toLowerCase());
}

/**
 * A negator among the `n` words before `at` (e.g. "not gaining", "no upcoming"), within the same
 * phrase: punctuation ends a negation's reach ("not increasing: it fell"), and an answer particle
 * ("No, weight fell …") is a reply to the question, not a negation.
 */
export function negatedBefore(text: string, at: number, n = 3): boolean {
  const before = text.slice(0, at);
  const cut = Math.max(...[...',;:—–()[]!?'].map((c) => before.lastIndexOf(c)));
  const phrase = before.slice(cut + 1);
  return wordsBefore(phrase, phrase.length, n).some((w) => NEGATOR.test(w) || /n['’]t$/.test(w));
}

export function countWords(text: string): number {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).length;
}

/** Claims are capped at 240 characters (§6.3). */
export function truncateClaim(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= 240 ? flat : `${flat.slice(0, 239)}…`;
}

/** Calendar months back with the day clamped (2026-03-31 − 1 month → 2026-02-28). */
export function monthsBefore(iso: string, months: number): string {
  const [y, m, d] = iso.split('-').map(Number);
  const target = y * 12 + (m - 1) - months;
  const ty = Math.floor(target / 12);
  const tm = target - ty * 12;
  const lastDay = new Date(Date.UTC(ty, tm + 1, 0)).getUTCDate();
  return new Date(Date.UTC(ty, tm, Math.min(d, lastDay))).toISOString().slice(0, 10);
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
