/**
 * Reading measurement values out of one answer sentence for date_value_binding (§6.3). A number is
 * attributed to a series only on positive evidence: the series' exact unit right after it (not a
 * longer unit such as `kg/m2`), a range or list sharing that unit, coordinated same-unit names in
 * mention order, or the series' name among the three words before it. Everything else — ages,
 * counts, deltas ("lost 3 kg"), thresholds ("above 50 kg"), reference ranges, years — is left alone,
 * because a misread number would flag a correct answer.
 */
import { coordinatedGroup, type Mention } from './gate-series';
import { escapeRegExp } from '../../regexp';
import { countWhile, MAX_MATCHED_NAME_CHARS, trimmedEnd, wordWindowStart } from './text';
import type { NumericSeries } from './types';

export interface ValueToken {
  value: number;
  decimals: number;
  start: number;
  end: number;
  /** End of the unit written after the number (== end without one). */
  unitEnd: number;
  /** Series (of the whole chart) whose unit the number carries. */
  unitSeries: NumericSeries[];
  /** Carries some other unit or noun ("14 years", "20 kg/m2", "3 visits"). */
  foreign: boolean;
  /** A delta, threshold, approximation or reference range: never checked. */
  skip: boolean;
  series: NumericSeries | null;
}

/** A number as written: where it starts and its text. */
interface NumberSpan {
  index: number;
  text: string;
}
/** Words that may follow a bare value without being its unit. */
const CONTINUATIONS = new Set([
  'on', 'in', 'at', 'and', 'or', 'to', 'then', 'from', 'was', 'were', 'is', 'are', 'by', 'as', 'with', 'when', 'while', 'but',
  'since', 'after', 'before', 'during', 'respectively', 'recorded', 'measured', 'documented', 'noted', 'which', 'that', 'through',
  'until', 'vs', 'versus', 'compared', 'dated', 'taken', 'obtained',
]);
const SKIP_BEFORE = new Set([
  'by', 'lost', 'gained', 'gaining', 'losing', 'lose', 'gain', 'loss', 'down', 'up', 'about', 'approximately', 'approx', 'around',
  'roughly', 'nearly', 'almost', 'over', 'under', 'above', 'below', 'exceeding', 'exceeds', 'than', 'least', 'most', 'normal',
  'range', 'target', 'goal', 'threshold', 'cutoff', 'limit', 'minus', 'plus', 'another', 'additional', 'extra', 'further', 'total',
  'increased', 'decreased', 'rose', 'fell', 'dropped', 'declined', 'climbed', 'grew', 'delta', 'reference', 'within',
]);
/** A reference range or threshold, not a patient value ("normal range of 12-16 g/dL"). */
const REFERENCE_WORDS = /^(?:normal|range|reference|target|goal|threshold|cutoff|limit|lln|uln)$/;
const CHANGE_NOUNS = /^(?:loss|gain|drop|decrease|increase|decline|change|difference|reduction|rise|fall|delta|deficit)$/;
const SKIP_AFTER = /^(?:loss|gain|drop|decrease|increase|decline|change|difference|reduction|rise|fall|lighter|heavier|less|more|higher|lower|above|below|over|under)$/;
/**
 * After a matched unit: it is only the start of a longer unit (`kg/m2`, `kg per m²`, `kg·m⁻²`).
 * `m\s*(?:\^\s*)?(?:[-−⁻]\s*)?[2²]` reads the same as `m\s*(?:\^?\s*[-−⁻]?\s*[2²]|²)` without three
 * blank runs that could share one long run (polynomial backtracking).
 */
const UNIT_CONTINUATION = /^\s*(?:\/|per\b|·|\*|\^|[²³⁻]|m\s*(?:\^\s*)?(?:[-−⁻]\s*)?[2²])/iu;
/** Separators inside a range or list that shares one unit: `53 to 52 kg`, `53-52 kg`, `53 and 52 kg`. */
const CHAIN_GAP = /^\s*(?:-|–|—|‐|‑|−|to|and|or|,|,\s*and|through|then)\s*$/i;
/** Words that may separate two coordinated deltas: "gained 0.9 kg between D1 and D2 and 0.8 kg …". */
const PERIOD_WORD = /^(?:between|and|from|to|on|in|over|during|since|until|through|by)$/;
const FOREIGN_TOKEN = /^\s*-?([\p{L}µμ°%][\p{L}\p{N}/µμ°%²³^]*)/u;
const WORD_BEFORE = /[\p{L}\p{N}'’~<>≤≥≈]+/gu;
const LETTERS = /\p{L}+/gu;
const LINE_BREAKS = ['\n', '\r', '\u2028', '\u2029'];

function isDigit(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 48 && c <= 57;
}

function digitRun(text: string, i: number): number {
  let j = i;
  while (isDigit(text, j)) j += 1;
  return j - i;
}

/**
 * Every number of `text` as the pattern
 * `\d{1,3}(?:,\d{3})+(?![\d,])(?:\.\d+)?|(?<!\d,)\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?` (global) reads
 * them — thousands separators (`1,200`) and a decimal comma (`41,5`) are one number, not a list —
 * scanned by hand: the pattern re-read a long `1,000,000,…,0` chain from each of its groups.
 */
function numberSpans(text: string): NumberSpan[] {
  const out: NumberSpan[] = [];
  // The end of the last `,ddd` chain read, and its first comma: later groups of it end there too.
  let chainFrom = -1;
  let chainTo = -1;
  const group = (q: number) => text[q] === ',' && isDigit(text, q + 1) && isDigit(text, q + 2) && isDigit(text, q + 3);
  const chainEnd = (p: number): number => {
    if (p >= chainFrom && p <= chainTo && (p - chainFrom) % 4 === 0) return chainTo;
    let q = p;
    while (group(q)) q += 4;
    [chainFrom, chainTo] = [p, q];
    return q;
  };
  const decimals = (q: number) => (text[q] === '.' && isDigit(text, q + 1) ? q + 1 + digitRun(text, q + 1) : q);
  let i = 0;
  while (i < text.length) {
    if (!isDigit(text, i)) {
      i += 1;
      continue;
    }
    const run = digitRun(text, i);
    let end = -1;
    // 1,200 / 1,200,000.5: one to three digits, whole `,ddd` groups, then neither a digit nor a comma.
    if (run <= 3 && group(i + run)) {
      const q = chainEnd(i + run);
      if (!isDigit(text, q) && text[q] !== ',') end = decimals(q);
    }
    // 41,5 / 41,25: a decimal comma, unless this number itself follows `<digit>,`.
    if (end < 0 && !(text[i - 1] === ',' && isDigit(text, i - 2)) && text[i + run] === ',') {
      const frac = digitRun(text, i + run + 1);
      if (frac >= 1 && frac <= 2 && text[i + run + 1 + frac] !== ',') end = i + run + 1 + frac;
    }
    if (end < 0) end = decimals(i + run);
    out.push({ index: i, text: text.slice(i, end) });
    i = end;
  }
  return out;
}

/** The unit as a pattern: µ/μ/u interchangeable, `/µL` also as `/mm3`, spaces optional. */
function unitPattern(unit: string): RegExp | null {
  const u = unit.trim();
  if (!u || /^\d/.test(u) || u.length > MAX_MATCHED_NAME_CHARS) return null;
  // A blank run in the unit is one `\s*` (two in a row would share a long run of the answer's blanks).
  const chars = [...u].filter((c, i, all) => !(i > 0 && /\s/.test(c) && /\s/.test(all[i - 1])));
  const body = chars.map((c) => (/[µμ]/.test(c) ? '[µμu]' : /\s/.test(c) ? '\\s*' : escapeRegExp(c))).join('');
  const mm3 = /\/[µμu]l$/i.test(u) ? `|${escapeRegExp(u.slice(0, u.search(/\/[µμu]l$/i)))}\\/mm(?:3|³|\\^3)` : '';
  return new RegExp(`^\\s*(?:${body}${mm3})`, 'iu');
}

/**
 * `unit.replace(/\s*[([].*$/, '').trim()` by hand: cut at the first `(` or `[` after the last line
 * break (`.` stops at line breaks), without trying the pattern from every blank and bracket.
 */
function unitHead(unit: string): string {
  const from = Math.max(...LINE_BREAKS.map((b) => unit.lastIndexOf(b))) + 1;
  const cuts = ['(', '['].map((b) => unit.indexOf(b, from)).filter((i) => i >= 0);
  return (cuts.length > 0 ? unit.slice(0, Math.min(...cuts)) : unit).trim();
}

/** The series' units without trailing annotations (`kg (normal)` → `kg`). */
function seriesUnits(series: NumericSeries): string[] {
  return [...new Set(series.points.map((p) => unitHead(p.unit)).filter(Boolean))];
}

/** Length of the series unit written at the start of `after`, -1 when absent, -2 when part of a longer unit. */
function unitMatch(after: string, series: NumericSeries): number {
  for (const unit of seriesUnits(series)) {
    const m = unitPattern(unit)?.exec(after);
    if (!m) continue;
    const rest = after.slice(m[0].length);
    if (/^\p{L}/u.test(rest) && !/^s(?!\p{L})/u.test(rest)) continue;
    if (UNIT_CONTINUATION.test(rest)) return -2;
    return m[0].length + (/^s(?!\p{L})/u.test(rest) ? 1 : 0);
  }
  return -1;
}

/** One raw number with its unit reading; null for parts of codes, ratios and times. */
function readNumber(text: string, m: NumberSpan, all: readonly NumericSeries[]): ValueToken | null {
  const start = m.index;
  const end = start + m.text.length;
  const before = text[start - 1] ?? '';
  if (/[\p{L}\p{N}_.]/u.test(before)) return null; // CD4, 1.2.3
  if (/[/:]/.test(before) && /\d/.test(text[start - 2] ?? '')) return null; // the 80 of 120/80, the 30 of 10:30
  const after = text.slice(end);
  if (/^[/:]\d/.test(after) || /^\.\d/.test(after)) return null; // 120/80, 10:30
  const literal = /^\d+,\d{1,2}$/.test(m.text) ? m.text.replace(',', '.') : m.text.replace(/,/g, '');
  let value = Number(literal);
  let skip = false;
  if (/[-−+]/.test(before)) {
    if (/\p{L}/u.test(text[start - 2] ?? '')) return null; // COVID-19
    // The last non-blank character before the sign (`/\d$/` on the trimmed prefix read all of it).
    const prev = trimmedEnd(text, start - 1);
    if (!(prev > 0 && isDigit(text, prev - 1))) {
      if (before === '+') skip = true; // "+3 kg" is a change
      else value = -value;
    }
  }
  const token: ValueToken = { value, decimals: (literal.split('.')[1] ?? '').length, start, end, unitEnd: end, unitSeries: [], foreign: false, skip, series: null };
  readUnit(token, after, all);
  return token;
}

function readUnit(token: ValueToken, after: string, all: readonly NumericSeries[]): void {
  let longer = false;
  for (const s of all) {
    const len = unitMatch(after, s);
    if (len === -2) longer = true;
    if (len > 0) {
      token.unitSeries.push(s);
      token.unitEnd = Math.max(token.unitEnd, token.end + len);
    }
  }
  if (token.unitSeries.length > 0) return;
  if (longer) {
    token.foreign = true;
    return;
  }
  const w = FOREIGN_TOKEN.exec(after);
  if (w && !CONTINUATIONS.has(w[1].toLowerCase().replace(/\.$/, ''))) {
    token.foreign = true;
    token.unitEnd = token.end + w[0].length;
  }
}

function hasUnit(t: ValueToken): boolean {
  return t.unitSeries.length > 0 || t.foreign;
}

/** Ranges and lists share the unit written once ("53 to 52 kg"), and a skipped head skips the range. */
function shareChains(text: string, tokens: ValueToken[]): void {
  for (let pass = 0; pass < 2; pass++) {
    for (let i = tokens.length - 2; i >= 0; i--) link(text, tokens[i], tokens[i + 1]);
    for (let i = 0; i < tokens.length - 1; i++) link(text, tokens[i], tokens[i + 1]);
  }
}

function link(text: string, a: ValueToken, b: ValueToken): void {
  if (!CHAIN_GAP.test(text.slice(a.unitEnd, b.start))) return;
  // A value already bound by coordinated names keeps its series; only unbound ones borrow a unit.
  if (!hasUnit(a) && hasUnit(b) && a.series === null) Object.assign(a, { unitSeries: [...b.unitSeries], foreign: b.foreign });
  else if (hasUnit(a) && !hasUnit(b) && b.series === null) Object.assign(b, { unitSeries: [...a.unitSeries], foreign: a.foreign });
  if (a.skip || b.skip) a.skip = b.skip = true;
}

function wordsBeforeAt(text: string, at: number, n: number): Array<{ word: string; start: number }> {
  // Read from where the last `n` words begin, not the whole prefix (this runs once per number).
  const from = wordWindowStart(text, at, n);
  const words = [...text.slice(from, at).matchAll(WORD_BEFORE)].map((w) => ({ word: w[0].toLowerCase(), start: from + w.index }));
  return words.slice(-n);
}

/** The letter runs of `text` (what `/\p{L}+/gu` matches), found once per text. */
function letterRuns(text: string): Array<{ start: number; end: number }> {
  return [...text.matchAll(LETTERS)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

/**
 * The first `n` of `text.slice(at).match(/\p{L}+/gu)`, from the text's letter runs: matching the
 * rest of the text per number was quadratic when few letters follow (a long list of numbers).
 */
function lettersAfter(text: string, runs: ReadonlyArray<{ start: number; end: number }>, at: number, n: number): string[] {
  const high = text.charCodeAt(at - 1);
  const low = text.charCodeAt(at);
  if (high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) return (text.slice(at).match(LETTERS) ?? []).slice(0, n);
  const lo = countWhile(runs.length, (i) => runs[i].end <= at);
  // A run that `at` cuts counts from `at` on, as it would in the slice.
  return runs.slice(lo, lo + n).map((r) => text.slice(Math.max(r.start, at), r.end));
}

function markSkips(text: string, t: ValueToken, letters: ReadonlyArray<{ start: number; end: number }>): void {
  const prevEnd = trimmedEnd(text, t.start);
  const prevChar = prevEnd > 0 ? text[prevEnd - 1] : '';
  if (/[~≈<>≤≥]/.test(prevChar)) t.skip = true;
  const prev = wordsBeforeAt(text, t.start, 2).map((w) => w.word);
  const last = prev[prev.length - 1];
  if (last !== undefined && SKIP_BEFORE.has(last)) t.skip = true;
  if (last === 'of' && prev.length === 2 && CHANGE_NOUNS.test(prev[0])) t.skip = true;
  if (wordsBeforeAt(text, t.start, 3).some((w) => REFERENCE_WORDS.test(w.word))) t.skip = true;
  // "2 kg loss", "2 kg weight loss"; a continuation word ("52 kg on …") ends the look-ahead.
  const next = lettersAfter(text, letters, t.unitEnd, 2).map((w) => w.toLowerCase());
  if (next[0] !== undefined && SKIP_AFTER.test(next[0])) t.skip = true;
  if (next[1] !== undefined && !CONTINUATIONS.has(next[0]) && SKIP_AFTER.test(next[1])) t.skip = true;
}

/**
 * A delta's verb also governs the next coordinated amount of the same unit when only a period lies
 * between them ("gained 0.9 kg between D1 and D2 and 0.8 kg between D2 and D3"; dates are blanked).
 */
function carrySkips(text: string, tokens: readonly ValueToken[]): void {
  for (let i = 1; i < tokens.length; i++) {
    const [a, b] = [tokens[i - 1], tokens[i]];
    if (!a.skip || b.skip || a.unitSeries.length === 0 || !b.unitSeries.every((s) => a.unitSeries.includes(s))) continue;
    const between = text.slice(a.unitEnd, b.start);
    const words = (between.match(/\p{L}+/gu) ?? []).map((w) => w.toLowerCase());
    if (!/[;.!?]/.test(between) && words[words.length - 1] === 'and' && words.every((w) => PERIOD_WORD.test(w))) b.skip = true;
  }
}

/** The series whose name ends among the three words before the number (restricted to `among`), if unique. */
function namedBefore(text: string, t: ValueToken, mentions: readonly Mention[], among: readonly NumericSeries[]): NumericSeries | null {
  const words = wordsBeforeAt(text, t.start, 3);
  if (words.length === 0) return null;
  const from = words[0].start;
  const named = new Set(mentions.filter((m) => m.end > from && m.end <= t.start && among.includes(m.series)).map((m) => m.series));
  return named.size === 1 ? [...named][0] : null;
}

/**
 * "Systolic and diastolic … were 120 and 80 mmHg": coordinated names take the following values in
 * mention order. Runs on each number's own unit (before ranges and lists share units), and binds
 * only when every value fits its series (its own unit is that series' unit, or it has none).
 */
function bindCoordinated(text: string, tokens: ValueToken[], mentions: readonly Mention[], clauseEnd: (at: number) => number): void {
  const seen = new Set<Mention>();
  for (const m of mentions) {
    if (seen.has(m)) continue;
    const group = coordinatedGroup(m, mentions, text);
    group.forEach((g) => seen.add(g));
    const series = [...new Set(group.map((g) => g.series))];
    if (series.length < 2) continue;
    const groupEnd = Math.max(...group.map((g) => g.end));
    const limit = clauseEnd(groupEnd);
    const eligible = tokens.filter((t) => t.start >= groupEnd && t.start < limit && !t.skip && !t.foreign && t.series === null);
    const picked = eligible.slice(0, series.length);
    if (picked.length < series.length || !picked.every((t, i) => t.unitSeries.length === 0 || t.unitSeries.includes(series[i]))) continue;
    picked.forEach((t, i) => (t.series = series[i]));
  }
}

function isYearLike(t: ValueToken): boolean {
  return t.decimals === 0 && t.value >= 1900 && t.value <= 2100 && t.unitSeries.length === 0;
}

/**
 * A unit shared by several charted series (systolic and diastolic mmHg) names none of them: the
 * series name must then be among the three words before the value. A unit that belongs only to an
 * unselected series (height `cm` in a weight answer) attributes nothing.
 */
function attribute(text: string, t: ValueToken, mentions: readonly Mention[], selected: readonly NumericSeries[]): void {
  if (t.series !== null || t.skip || t.foreign) return;
  if (t.unitSeries.length === 1) {
    t.series = selected.includes(t.unitSeries[0]) ? t.unitSeries[0] : null;
  } else if (t.unitSeries.length > 1) {
    t.series = namedBefore(text, t, mentions, t.unitSeries.filter((s) => selected.includes(s)));
  } else if (!isYearLike(t)) {
    t.series = namedBefore(text, t, mentions, selected);
  }
}

/**
 * All values of a (blanked) sentence with their series attribution: units are read against every
 * charted series (`all`), values are attributed only to `selected` ones; `clauseEnd(at)` bounds how
 * far coordinated names reach.
 */
export function readValues(
  text: string,
  mentions: readonly Mention[],
  selected: readonly NumericSeries[],
  all: readonly NumericSeries[],
  clauseEnd: (at: number) => number,
): ValueToken[] {
  const tokens = numberSpans(text).map((m) => readNumber(text, m, all)).filter((t): t is ValueToken => t !== null);
  const letters = letterRuns(text);
  tokens.forEach((t) => markSkips(text, t, letters));
  carrySkips(text, tokens);
  bindCoordinated(text, tokens, mentions, clauseEnd);
  shareChains(text, tokens);
  tokens.forEach((t) => attribute(text, t, mentions, selected));
  return tokens;
}
