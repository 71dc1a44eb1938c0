/**
 * Text rules shared by the extractors and the tests: the whitespace-insensitive quote match, sentence
 * splitting, numbered-heading detection and the criteria/directive split. Pure functions.
 *
 * Whitespace rule: PDF text loses the space next to an italic span ("pyloriInfection"), and line joins may
 * add one, so a quote matches its source when the two are equal with ALL whitespace removed. The stored
 * verbatim is always the chunk's own bytes, never the compared form.
 */

/** The compared form: NFC, every whitespace character removed. */
export function squash(s: string): string {
  return s.normalize('NFC').replace(/\s+/gu, '');
}

/** Collapses runs of whitespace to one space and trims (display and line joins). */
export function collapse(s: string): string {
  return s.replace(/\s+/gu, ' ').trim();
}

/**
 * Finds `quote` in `text` under the whitespace rule and returns the matching span of `text` itself
 * (trimmed to non-whitespace at both ends), or null when the quote is not there.
 */
export function findQuote(text: string, quote: string): { start: number; end: number; bytes: string } | null {
  const q = squash(quote);
  if (q === '') return null;
  const nfc = text.normalize('NFC');
  // Map every non-whitespace character of the text to its offset so a squashed hit maps back to the source.
  const offsets: number[] = [];
  let flat = '';
  for (let i = 0; i < nfc.length; i++) {
    const ch = nfc[i];
    if (/\s/u.test(ch)) continue;
    offsets.push(i);
    flat += ch;
  }
  const at = flat.indexOf(q);
  if (at < 0) return null;
  const start = offsets[at];
  const end = offsets[at + q.length - 1] + 1;
  return { start, end, bytes: nfc.slice(start, end) };
}

export function containsQuote(text: string, quote: string): boolean {
  return findQuote(text, quote) !== null;
}

/** Abbreviations whose period does not end a sentence (lower-cased, without the final period). */
const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'vs', 'approx', 'dr', 'no', 'fig', 'u.s', 'usp', 'ca', 'al', 'min', 'max', 'inc', 'co', 'ltd', 'mr', 'mrs', 'ms', 'st']);

/**
 * Splits a paragraph into sentences at `.`, `!` or `?` followed by whitespace and an upper-case letter, a
 * digit or an opening bracket — never inside (), [] or {}, never after an abbreviation or a single capital
 * initial ("H. pylori"). Returns the sentences as exact, trimmed substrings of the input.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if ((ch === ')' || ch === ']' || ch === '}') && depth > 0) depth--;
    if (depth > 0 || (ch !== '.' && ch !== '!' && ch !== '?')) continue;
    const rest = text.slice(i + 1);
    const next = /^\s+(?=[A-Z0-9([“"])/u.exec(rest);
    if (!next) continue;
    if (ch === '.') {
      const before = text.slice(start, i);
      const word = before.slice(Math.max(before.lastIndexOf(' '), before.lastIndexOf('\n')) + 1);
      const bare = word.replace(/^[([“"]+/u, '');
      if (ABBREVIATIONS.has(bare.toLowerCase()) || /^[A-Z]$/u.test(bare) || /^(?:[A-Za-z]\.)+[A-Za-z]$/u.test(bare)) continue;
    }
    const s = text.slice(start, i + 1).trim();
    if (s) out.push(s);
    start = i + 1 + next[0].length;
    i = start - 1;
  }
  const tail = text.slice(start).trim();
  if (tail) out.push(tail);
  return out;
}

/** A numbered label heading ("7", "7.4") with its title, or null. Sections run 1–17 in US labels. */
export function parseNumberedHeading(line: string): { major: number; minor: number | null; title: string } | null {
  const m = /^(\d{1,2})(?:\.(\d{1,2}))?\s+([A-Z][^.]{1,120})$/u.exec(line.trim());
  if (!m) return null;
  const major = Number(m[1]);
  if (major < 1 || major > 17) return null;
  return { major, minor: m[2] === undefined ? null : Number(m[2]), title: m[3].trim() };
}

/** A boxed-warning heading ("WARNING: BLEEDING RISK", "BOXED WARNING"). */
export function isBoxedWarningHeading(line: string): boolean {
  return /^(?:BOXED WARNING\b|WARNING:\s*[A-Z])/u.test(line.trim());
}

/** Leading clauses that state who/when: "If …,", "In patients with …,", "When …,". */
const CRITERIA_LEAD = /^(?:If|When|Whenever|In|For|Before|After|During|Prior to|Once|Until|Unless|Among|Where|While)\b/u;

/**
 * Splits a sentence shaped "<condition>, <action>" into criteria and directive (both exact substrings of
 * the sentence); null when the sentence does not have that shape. The split is at the first comma outside
 * brackets, and only when both sides keep at least three words.
 */
export function splitCriteriaDirective(sentence: string): { criteria: string; directive: string } | null {
  const s = sentence.trim();
  if (!CRITERIA_LEAD.test(s)) return null;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '(' || ch === '[') depth++;
    else if ((ch === ')' || ch === ']') && depth > 0) depth--;
    else if (ch === ',' && depth === 0) {
      const criteria = s.slice(0, i).trim();
      const directive = s.slice(i + 1).trim();
      const words = (x: string) => x.split(/\s+/u).filter(Boolean).length;
      // "In addition, …" or "For example, …" are connectives, not conditions.
      if (words(criteria) < 3 || words(directive) < 3) return null;
      return { criteria, directive };
    }
  }
  return null;
}

/** Sentences that tell the reader to do, avoid or watch something (the recommendation-bearing ones). */
const DIRECTIVE_CUE = /\b(?:should|must|avoid|monitor(?:ing)?|consider|contraindicated|do not|discontinue|recommended|not recommended|reduce|adjust|initiate|obtain|assess|evaluate|instruct|advise|withhold|use with caution|caution|titrate|administer|stop|limit|check|measure|maintain|individualize|counsel|inform|interrupt|resume)\b/iu;

export function hasDirectiveCue(sentence: string): boolean {
  return DIRECTIVE_CUE.test(sentence);
}
