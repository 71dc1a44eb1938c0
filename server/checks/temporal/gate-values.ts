/**
 * date_value_binding (§6.3): per sentence with ISO dates, every value attributed to a selected series
 * must be a documented value, and a value bound to a date must be that series' value on that date.
 * Binding is explicit before it is positional: "respectively" and grouped lists pair in order, then
 * tight adjacency ("52 kg on D", "D: 52 kg"), then a lone value with a lone date, then the mutually
 * nearest value inside a comma-delimited segment. A value with no binding is only checked for
 * existence, so an unclear sentence can never be failed on a guessed date.
 */
import { makeCheck, noResult, sameValue, type CheckResult, type GateContext } from './gate-common';
import { readValues, type ValueToken } from './gate-numbers';
import { findMentions, seriesSummaryPatch } from './gate-series';
import { findDateLikeTokens } from './gate-dates';
import { blankMarkers, countWhile, blankSpans, findIsoDates, splitClauses, splitSentences, trimmedEnd, type IsoDate, type Piece } from './text';
import type { GateCheck, NumericSeries, SeriesPoint } from './types';

const MAX_FAILURES_PER_SERIES = 3;
/** "52 kg on D", "52 kg (D)", "52 kg | D", "52 kg at the most recent visit on D". */
const VALUE_THEN_DATE =
  /^[\s(|]*(?:(?:on|at|in|as of|dated|recorded|measured|documented|taken|obtained|noted)\s+(?:on\s+|at\s+)?)?(?:the\s+)?(?:(?:at|during)\s+(?:the\s+)?(?:[\w-]+\s+){0,3}(?:visit|encounter|consultation)\s+(?:on\s+|of\s+|dated\s+)?)?$/i;
/** A conjunction between a date and a value starts a new item: the date belongs to the one before. */
const NEW_ITEM = /\b(?:and|or|but|while|whereas|then|versus|vs)\b|;/i;
/** "D: 52 kg", "D | 52 kg" — a date introducing what follows. */
const DATE_HEADER = /^[\s]*[:|]/;
/**
 * "D, weight was 52 kg" (series names are blanked before this test). It holds no digit. The blanks
 * after a `:`/`,`/`=` belong to it: `\s*[:,=]?\s*` split one blank run every way (polynomial).
 */
const DATE_THEN_VALUE = /^[\s:,|)=\-–—]*(?:(?:the|a|an|patient['’]?s?|was|were|is|of|at|measured|recorded|documented|reading|value|level|count|weighed|measurement|result|it)\s*(?:[:,=]\s*)?){0,4}$/i;
/** Other events a date may belong to: a value next to them is not "on" that date. */
const OTHER_EVENT = /\b(?:return|next|scheduled|appointment|follow[- ]?up|start|started|initiat\w*|began|begin|diagnos\w*|enrol\w*|admi\w*|discharg\w*|prescrib\w*|since|after|before|until|prior|born|birth)\b/i;
const MAX_NEAREST_WORDS = 6;
/** A number of its own (`83`, `19.8`), not a digit inside a name (`CD4`, `HbA1c`). */
const STANDALONE_NUMBER = /(?<![\p{L}\p{N}_.])\d+(?:[.,]\d+)?(?![\p{L}\p{N}_])/u;
/**
 * "ranged between 52.0 and 55.0 kg from D1 to D2": the values are the extent of the series over the
 * dates (lowest and highest), not one value per date, so they are never paired with the dates by
 * position or proximity — only a value written right next to its own date is bound.
 */
const EXTENT_WORD = /\brang(?:e|es|ed|ing)\b/i;
const EXTENT_LEAD = /\bbetween\s*$/i;
/** Tested on the prefix's last characters with its trailing blanks cut (as `\b(?:between|from)\s*$` on all of it). */
const SPAN_LEAD = /\b(?:between|from)$/i;
/** SPAN_LEAD's longest word plus one character for its `\b`. */
const SPAN_LEAD_REACH = 8;
const SPAN_JOIN = /^\s*(?:and|to|through|until|-|–|—)\s*$/i;

interface Binding {
  token: ValueToken;
  date: string | null;
}

/** A date position in a sentence; `iso` is null for a malformed date (date_format reports it). */
interface SentenceDate {
  iso: string | null;
  start: number;
  end: number;
  /** An end of a period ("between D1 and D2", "from D1 to D2"), not the date of one value. */
  span?: boolean;
}

interface Failure {
  message: string;
  indices: number[];
}

export function checkDateValues(ctx: GateContext): CheckResult {
  const series = ctx.selected.map((s) => s.series);
  if (series.length === 0) return noResult();
  const failures = new Map<NumericSeries, Failure[]>();
  const verified = new Map<NumericSeries, SeriesPoint[]>();
  const claims = new Map<NumericSeries, string>();
  for (const sentence of splitSentences(ctx.answer)) {
    const dates = findIsoDates(sentence.text);
    if (dates.length === 0) continue;
    for (const b of bindSentence(sentence.text, dates, series, ctx.facts.numeric_series, ctx.claimLocal !== undefined)) {
      const s = b.token.series as NumericSeries;
      const outcome = judge(s, b);
      if (outcome.ok) push(verified, s, ...outcome.points);
      else if ((failures.get(s)?.length ?? 0) < MAX_FAILURES_PER_SERIES) {
        push(failures, s, outcome.failure);
        if (!claims.has(s)) claims.set(s, sentence.text);
      }
    }
  }
  return toResult(ctx, series, failures, verified, claims);
}

function push<K, V>(map: Map<K, V[]>, key: K, ...values: V[]): void {
  // Appended in place: copying the list per value was quadratic in a long list of values.
  const list = map.get(key);
  if (list) for (const v of values) list.push(v);
  else map.set(key, [...values]);
}

/**
 * A sentence as bindPart reads it: dates and markers blanked; the same with series names blanked
 * too, and the comma/parenthesis segments, each built once per sentence when first needed.
 */
interface BlankedSentence {
  text: string;
  unnamed: () => string;
  segmentOf: (at: number) => { start: number; end: number };
}

/** Index of the first of the ascending `xs` that is ≥ `x` (`xs.length` when none). */
function lowerBound(xs: ReadonlyArray<number>, x: number): number {
  return countWhile(xs.length, (i) => xs[i] < x);
}

/** Attributed values of one sentence with the date each is bound to (null = unbound). */
function bindSentence(text: string, isoDates: readonly IsoDate[], series: readonly NumericSeries[], all: readonly NumericSeries[], byClause: boolean): Binding[] {
  const malformed = findDateLikeTokens(text).filter((t) => t.kind !== 'iso');
  const blanked = blankSpans(blankMarkers(text), [...isoDates, ...malformed]);
  // A malformed date still occupies its place: a value written next to it is bound to it (and so
  // only checked for existence) instead of drifting to the nearest well-formed date.
  const dates: SentenceDate[] = [...isoDates, ...malformed.map((t) => ({ iso: null, start: t.start, end: t.end }))].sort((a, b) => a.start - b.start);
  markSpans(blanked, dates);
  const mentions = findMentions(blanked, series, all);
  // An In-Depth claim binds a value only to a date of its own clause (§6.4 Target): "74 kg [3], and
  // a CD4 count was drawn on D" says nothing about weight on D. Clauses are cut from the unblanked
  // text (same offsets) because trimming would drop a blanked date at a clause's end.
  const parts = byClause ? splitClauses({ text, start: 0 }) : splitParts(blanked);
  // Parts are in order and apart (never sharing an end), as are tokens and dates: each lookup is a
  // binary search instead of a scan of all of them per part or per coordinated name.
  const partStarts = parts.map((p) => p.start);
  const partEnd = (at: number) => {
    const p = parts[lowerBound(partStarts, at + 1) - 1];
    return p && at <= p.start + p.text.length ? p.start + p.text.length : blanked.length;
  };
  const tokens = readValues(blanked, mentions, series, all, partEnd).filter((t) => t.series !== null);
  const tokenStarts = tokens.map((t) => t.start);
  const dateStarts = dates.map((d) => d.start);
  let unnamed: string | undefined;
  let separators: number[] | undefined;
  const sentence: BlankedSentence = {
    text: blanked,
    // Series names blanked once per sentence, not once per value: "D, weight was 52 kg" reads as "D, … was 52 kg".
    unnamed: () => (unnamed ??= blankSpans(blanked, mentions)),
    segmentOf: (at) => segmentOf(blanked, (separators ??= separatorsOf(blanked)), at),
  };
  const out: Binding[] = [];
  for (const part of parts) {
    const end = part.start + part.text.length;
    const inPart = tokens.slice(lowerBound(tokenStarts, part.start), lowerBound(tokenStarts, end));
    for (const s of series) {
      const values = inPart.filter((t) => t.series === s);
      if (values.length > 0) out.push(...bindPart(sentence, part, values, dates.slice(lowerBound(dateStarts, part.start), lowerBound(dateStarts, end))));
    }
  }
  return out;
}

/** "between D1 and D2", "from D1 to D2": both dates bound a period (blanked text: citations are spaces). */
function markSpans(text: string, dates: SentenceDate[]): void {
  const leadEnd = trimmedEndsInOrder(text);
  for (let i = 0; i + 1 < dates.length; i++) {
    const [a, b] = [dates[i], dates[i + 1]];
    // The lead is read at the prefix's end only: a `$`-anchored test over the whole prefix per date
    // was quadratic, and with the dates blanked the blanks before one date span all earlier ones.
    const end = leadEnd(a.start);
    if (SPAN_LEAD.test(text.slice(Math.max(0, end - SPAN_LEAD_REACH), end)) && SPAN_JOIN.test(text.slice(a.end, b.start))) a.span = b.span = true;
  }
}

/**
 * `text.slice(0, at).trimEnd().length` for non-decreasing `at`. The dates are blanked, so the blanks
 * before one date can reach back over all earlier ones: each call scans only back to the previous
 * `at` and reuses its answer when everything since is blank.
 */
function trimmedEndsInOrder(text: string): (at: number) => number {
  let lastAt = 0;
  let lastEnd = 0;
  return (at) => {
    if (at < lastAt) return trimmedEnd(text, at);
    let i = at;
    while (i > lastAt && /\s/.test(text[i - 1])) i -= 1;
    const end = i > lastAt ? i : lastEnd;
    [lastAt, lastEnd] = [at, end];
    return end;
  };
}

/** `;` and line breaks separate claims; commas do not ("On D1 and D2, weight was 53 and 52 kg"). */
function splitParts(text: string): Piece[] {
  const out: Piece[] = [];
  let from = 0;
  for (const m of text.matchAll(/;/g)) {
    out.push({ text: text.slice(from, m.index), start: from });
    from = m.index + 1;
  }
  out.push({ text: text.slice(from), start: from });
  return out;
}

function bindPart(sentence: BlankedSentence, part: Piece, values: ValueToken[], dates: SentenceDate[]): Binding[] {
  const text = sentence.text;
  const bound = new Map<ValueToken, string | null>();
  if (/\brespectively\b/i.test(part.text)) {
    if (dates.length === values.length) values.forEach((v, i) => bound.set(v, dates[i].iso));
    else if (dates.length === 1) values.forEach((v) => bound.set(v, dates[0].iso));
    return values.map((token) => ({ token, date: bound.get(token) ?? null }));
  }
  const extent = values.length >= 2 && isExtent(text, part, values);
  if (!extent && values.length >= 2 && grouped(text, values, dates)) {
    values.forEach((v, i) => bound.set(v, dates[i].iso));
  } else {
    for (const v of values) {
      const d = adjacentDate(text, v, dates, sentence.unnamed);
      if (d) bound.set(v, d.iso);
    }
    const loose = values.filter((v) => !bound.has(v));
    // A lone value and a lone date pair up, unless another value sits between them: in "height 172 cm
    // and weight 83 kg (D)" the date belongs to the weight.
    if (values.length === 1 && dates.length === 1 && loose.length === 1) {
      const between = gap(text, loose[0], dates[0]);
      if (!OTHER_EVENT.test(between) && !STANDALONE_NUMBER.test(between)) bound.set(loose[0], dates[0].iso);
    }
    const backs = new Map<string, ValueToken | null>();
    for (const v of extent ? [] : values.filter((x) => !bound.has(x))) {
      const d = nearestInSegment(sentence, v, dates, values, backs);
      if (d) bound.set(v, d.iso);
    }
  }
  return values.map((token) => ({ token, date: bound.get(token) ?? null }));
}

function isExtent(text: string, part: Piece, values: readonly ValueToken[]): boolean {
  return EXTENT_WORD.test(part.text) || EXTENT_LEAD.test(text.slice(part.start, values[0].start));
}

function gap(text: string, v: ValueToken, d: SentenceDate): string {
  return d.start >= v.unitEnd ? text.slice(v.unitEnd, d.start) : text.slice(d.end, v.start);
}

/** "On D1 and D2 weight was 53 and 52 kg": equal-length lists, not interleaved, pair in order. */
function grouped(text: string, values: readonly ValueToken[], dates: readonly SentenceDate[]): boolean {
  if (dates.length !== values.length) return false;
  const vFirst = values[0].start;
  const vLast = values[values.length - 1].unitEnd;
  const dFirst = dates[0].start;
  const dLast = dates[dates.length - 1].end;
  if (vLast <= dFirst) return !OTHER_EVENT.test(text.slice(vLast, dFirst));
  if (dLast <= vFirst) return !OTHER_EVENT.test(text.slice(dLast, vFirst));
  return false;
}

/**
 * The date written right next to the value. "52 kg on D" beats a preceding "D, …"; a header date
 * ("D: …") binds only forward; two equally strong candidates bind nothing.
 */
function adjacentDate(text: string, v: ValueToken, dates: readonly SentenceDate[], unnamed: () => string): SentenceDate | null {
  const scored: Array<{ d: SentenceDate; score: number }> = [];
  const after = dates.find((d) => d.start >= v.unitEnd);
  // VALUE_THEN_DATE first: it stops at the next value, so the look past `after` runs for few values.
  if (after && VALUE_THEN_DATE.test(text.slice(v.unitEnd, after.start)) && !DATE_HEADER.test(text.slice(after.end))) {
    const between = text.slice(v.unitEnd, after.start).trim();
    scored.push({ d: after, score: between === '' ? 1 : 3 });
  }
  let before: SentenceDate | undefined;
  for (let i = dates.length - 1; i >= 0 && !before; i--) if (dates[i].end <= v.start) before = dates[i];
  // A digit in between (an earlier value) already rules DATE_THEN_VALUE out; looking back only to it
  // keeps many values after one date from re-reading the same stretch each.
  if (before && !digitBetween(unnamed(), before.end, v.start)) {
    const between = unnamed().slice(before.end, v.start);
    if (DATE_THEN_VALUE.test(between)) scored.push({ d: before, score: DATE_HEADER.test(between) ? 3 : 2 });
  }
  scored.sort((a, b) => b.score - a.score);
  if (scored.length === 0 || (scored.length === 2 && scored[0].score === scored[1].score)) return null;
  return scored[0].d;
}

/** An ASCII digit in `text.slice(from, to)`, looked for from the right. */
function digitBetween(text: string, from: number, to: number): boolean {
  for (let i = to - 1; i >= from; i--) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/**
 * Mutually nearest date and value inside one comma/parenthesis-delimited segment, a few words apart;
 * the end points of a period ("52.0 kg between D1 and D2") never bind this way.
 */
function nearestInSegment(
  sentence: BlankedSentence,
  v: ValueToken,
  dates: readonly SentenceDate[],
  values: readonly ValueToken[],
  backs: Map<string, ValueToken | null>,
): SentenceDate | null {
  const text = sentence.text;
  const seg = sentence.segmentOf(v.start);
  const inSeg = <T extends { start: number }>(xs: readonly T[]) => xs.filter((x) => x.start >= seg.start && x.start < seg.end);
  // A period's end points are not the date of a value that merely sits next to them.
  const segDates = inSeg(dates).filter((d) => !d.span);
  const nearestDate = closest(segDates, (d) => distance(v, d));
  if (!nearestDate) return null;
  // The value nearest a date depends on the segment and the date only: found once for all values
  // of a segment (per value, it made many values in one segment quadratic).
  const key = `${seg.start}:${nearestDate.start}`;
  if (!backs.has(key)) backs.set(key, closest(inSeg(values), (x) => distance(x, nearestDate)));
  if (backs.get(key) !== v) return null;
  const between = gap(text, v, nearestDate);
  if (OTHER_EVENT.test(between) || NEW_ITEM.test(between) || (between.match(/[\p{L}\p{N}]+/gu) ?? []).length > MAX_NEAREST_WORDS) return null;
  return nearestDate;
}

/** Positions of the segment separators `,` `(` `)`, ascending. */
function separatorsOf(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i] === ',' || text[i] === '(' || text[i] === ')') out.push(i);
  return out;
}

/**
 * The comma/parenthesis-delimited segment around `at`, from the sentence's separator positions:
 * the last one at or before `max(at - 1, 0)` (as `lastIndexOf(c, at - 1)` reads) and the first one
 * at or after `at`. Searching the text per value was quadratic.
 */
function segmentOf(text: string, separators: readonly number[], at: number): { start: number; end: number } {
  const left = separators[lowerBound(separators, Math.max(at - 1, 0) + 1) - 1] ?? -1;
  const right = separators[lowerBound(separators, at)];
  return { start: left + 1, end: right ?? text.length };
}

function distance(v: ValueToken, d: SentenceDate): number {
  return d.start >= v.unitEnd ? d.start - v.unitEnd : Math.max(0, v.start - d.end);
}

function closest<T>(xs: readonly T[], dist: (x: T) => number): T | null {
  let best: T | null = null;
  let bestD = Infinity;
  let tie = false;
  for (const x of xs) {
    const d = dist(x);
    if (d < bestD) [best, bestD, tie] = [x, d, false];
    else if (d === bestD) tie = true;
  }
  return tie ? null : best;
}

type Judgement = { ok: true; points: SeriesPoint[] } | { ok: false; failure: Failure };

function judge(s: NumericSeries, b: Binding): Judgement {
  const v = b.token;
  const written = `${v.value}${s.points[0]?.unit ? ` ${s.points[0].unit}` : ''}`;
  const matches = s.points.filter((p) => sameValue(v.value, v.decimals, p.value));
  if (b.date === null) {
    if (matches.length > 0) return { ok: true, points: matches };
    return { ok: false, failure: { message: `${written} is not a documented ${s.concept} value.`, indices: [] } };
  }
  const onDate = s.points.find((p) => p.date === b.date);
  if (!onDate) {
    return { ok: false, failure: { message: `No ${s.concept} measurement is documented on ${b.date} (the answer gives ${written}).`, indices: matches.map((p) => p.index) } };
  }
  if (!sameValue(v.value, v.decimals, onDate.value)) {
    const also = matches.length === 0 ? ' and is not a documented value' : '';
    return { ok: false, failure: { message: `${s.concept} on ${b.date} was ${onDate.value}${onDate.unit ? ` ${onDate.unit}` : ''}, not ${written}${also}.`, indices: [onDate.index] } };
  }
  return { ok: true, points: [onDate] };
}

function toResult(
  ctx: GateContext,
  series: readonly NumericSeries[],
  failures: Map<NumericSeries, Failure[]>,
  verified: Map<NumericSeries, SeriesPoint[]>,
  claims: Map<NumericSeries, string>,
): CheckResult {
  const checks: GateCheck[] = [];
  let patchFor: NumericSeries | null = null;
  for (const s of series) {
    const failed = failures.get(s) ?? [];
    for (const f of failed) {
      checks.push(makeCheck('date_value_binding', 'fail', 'block', claims.get(s) ?? '', f.message, f.indices));
    }
    if (failed.length > 0) patchFor ??= s;
    const ok = verified.get(s) ?? [];
    if (failed.length === 0 && ok.length > 0) {
      const pts = [...new Set(ok)];
      const listed = pts.map((p) => `${p.value} on ${p.date}`).join(', ');
      checks.push(makeCheck('date_value_binding', 'pass', 'block', `${s.concept}: ${listed}`, `Every dated ${s.concept} value in the answer matches the chart.`, pts.map((p) => p.index)));
    }
  }
  const patch = patchFor ? seriesSummaryPatch(patchFor, ctx.trendAsked) : null;
  return { checks, patch };
}
