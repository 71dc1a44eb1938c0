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
/** `. ! ?` followed by blanks and a capital (an opening quote or bracket may come first). */
const SENTENCE_END = /[.!?](?=\s+["'(\[]?[A-Z])/g;
/**
 * Where one claim ends and an unrelated one begins inside a sentence. Commas are deliberately not
 * boundaries: "Weight, measured monthly, decreased" is one claim. `(?<!\s)`: a break's blanks are
 * tried from the start of their run only (a match inside a run also matches from its start, which
 * comes first), so a long run is not re-read from each of its positions.
 */
const CLAUSE_BREAK = /;|,\s+(?:and|but|then|whereas|while|although|though|however|after|before)\b|(?<!\s)\s+(?:but|whereas|while|although|though|however|and then|followed by)\s+|,?(?<!\s)\s+then\s+/gi;
const NEGATOR = /\b(?:no|not|never|none|nothing|neither|nor|without|cannot)\b|n't\b/i;
const WORD_BEFORE = /[\p{L}\p{N}'’~<>≤≥≈]+/gu;
const WORD_BEFORE_CHAR = /^[\p{L}\p{N}'’~<>≤≥≈]$/u;
const WORD_AFTER = /[\p{L}\p{N}'’]+/gu;
/** Punctuation that ends a negation's reach (never a word character). */
const NEGATION_STOPS = ',;:—–()[]!?';
const SPACE = /\s/;

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
  if (spans.some((s) => s.start < 0 || s.start > s.end || s.end > text.length)) {
    // Out-of-range spans grow the text; kept span by span exactly as before (callers pass in-range spans).
    let out = text;
    for (const s of spans) out = out.slice(0, s.start) + ' '.repeat(s.end - s.start) + out.slice(s.end);
    return out;
  }
  // One pass over the sorted spans: rebuilding the whole text per span was quadratic in the span count.
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let at = 0;
  for (const s of sorted) {
    if (s.end <= at) continue;
    const from = Math.max(at, s.start);
    parts.push(text.slice(at, from), ' '.repeat(s.end - from));
    at = s.end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/** Citation markers and exposed date ids blanked: what remains can be read for measurements. */
export function blankMarkers(text: string): string {
  return text.replace(CITATION, (m) => ' '.repeat(m.length)).replace(DATE_ID, (m) => ' '.repeat(m.length));
}

/** Sentences with offsets: lines first (table rows, bullets), then `. ! ?` followed by a capital. */
export function splitSentences(text: string): Piece[] {
  const out: Piece[] = [];
  // Lines by indexOf, and blank lines (which hold no piece) skipped before any matching: the gate
  // splits one answer several times, and thousands of CRLF lines were costly even when linear.
  for (let at = 0; at < text.length; ) {
    const nl = text.indexOf('\n', at);
    const lineEnd = nl < 0 ? text.length : nl;
    const line = text.slice(at, lineEnd);
    if (line.trim() !== '') splitLine(out, line, at);
    at = lineEnd + 1;
  }
  return out;
}

function splitLine(out: Piece[], line: string, offset: number): void {
  let from = 0;
  for (const m of line.matchAll(SENTENCE_END)) {
    const upTo = m.index + 1;
    if (ABBREVIATION.test(line.slice(Math.max(0, upTo - 8), upTo))) continue;
    pushPiece(out, line.slice(from, upTo), offset + from);
    from = upTo;
  }
  pushPiece(out, line.slice(from), offset + from);
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

/**
 * How many leading items satisfy `holds(i)`, for a predicate that holds on a prefix of the items and
 * fails after it: a binary search, so per-match look-ups over sorted spans stay O(log n).
 */
export function countWhile(length: number, holds: (i: number) => boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (holds(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The code point that ends at `i` (a surrogate pair counts once). */
export function codePointBefore(text: string, i: number): string {
  const low = text.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(i - 2, i);
  }
  return text[i - 1];
}

/**
 * Where the last `n` words before `at` begin (or just after a `stop` character, whichever comes
 * first; 0 when there are fewer). The word pattern run over `text.slice(start, at)` finds the same
 * last words as over `text.slice(0, at)`, so callers that look back once per match in a loop stay
 * linear instead of re-reading the whole prefix each time.
 */
export function wordWindowStart(text: string, at: number, n: number, stop = ''): number {
  let i = Math.min(at, text.length);
  let words = 0;
  let inWord = false;
  while (i > 0) {
    const c = codePointBefore(text, i);
    if (WORD_BEFORE_CHAR.test(c)) {
      if (!inWord) words += 1;
      inWord = true;
    } else {
      if ((n > 0 && inWord && words >= n) || stop.includes(c)) return i;
      inWord = false;
    }
    i -= c.length;
  }
  return 0;
}

/** The last `n` words (letters, digits, apostrophes) before `at`. */
export function wordsBefore(text: string, at: number, n: number): string[] {
  const words = text.slice(wordWindowStart(text, at, n), at).match(WORD_BEFORE) ?? [];
  return words.slice(-n).map((w) => w.toLowerCase());
}

/**
 * The first `n` matches of the global pattern `re` in `text.slice(at)`, read from `at` on and no
 * further than the n-th (matching the whole rest per call made per-match loops quadratic).
 */
function firstMatches(re: RegExp, text: string, at: number, n: number): string[] {
  const high = text.charCodeAt(at - 1);
  const low = text.charCodeAt(at);
  const midPair = high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
  // A start inside a surrogate pair reads differently from a slice there: keep the slice for it.
  if (n <= 0 || midPair || !re.global) return (text.slice(at).match(re) ?? []).slice(0, n);
  const out: string[] = [];
  re.lastIndex = at;
  while (out.length < n) {
    const m = re.exec(text);
    if (m === null) break;
    out.push(m[0]);
  }
  re.lastIndex = 0;
  return out;
}

/** The first `n` words after `at`. */
export function wordsAfter(text: string, at: number, n: number): string[] {
  return firstMatches(WORD_AFTER, text, at, n).map((w) => w.toLowerCase());
}

/** `text.slice(0, end).trimEnd().length`, by a scan back over the blanks only. */
export function trimmedEnd(text: string, end: number): number {
  let i = Math.min(end, text.length);
  while (i > 0 && SPACE.test(text[i - 1])) i -= 1;
  return i;
}

/**
 * A negator among the `n` words before `at` (e.g. "not gaining", "no upcoming"), within the same
 * phrase: punctuation ends a negation's reach ("not increasing: it fell"), and an answer particle
 * ("No, weight fell …") is a reply to the question, not a negation.
 */
export function negatedBefore(text: string, at: number, n = 3): boolean {
  // Only the phrase's last `n` words matter: read back to them (or the punctuation), not to the text start.
  const phrase = text.slice(wordWindowStart(text, at, n, NEGATION_STOPS), at);
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

/**
 * Units and series names longer than this are never looked for in an answer or a claim. A real unit
 * is a few characters and a concept name a few words; a hostile chart's "unit" of 200,000 characters
 * made a pattern V8 could not compile (a stack overflow, then `Invalid regular expression` at about
 * 100,000), which threw out of the gate and cost the turn its Answer.
 */
export const MAX_MATCHED_NAME_CHARS = 256;
