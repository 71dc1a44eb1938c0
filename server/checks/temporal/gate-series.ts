/**
 * Series selection for the Answer gate (§6.3): which numeric series the answer talks about, where it
 * mentions them, which mentions are coordinated ("weight and height both …"), and the series patch
 * texts. Selection prefers precision: a series is checked only when its name (or a known alias) is
 * written, and a series whose every mention sits inside a longer series name is dropped.
 */
import { formatPoint, formatValue, type SelectedSeries } from './gate-common';
import { runSteps, type Steps } from '../../event-loop';
import { escapeRegExp } from '../../regexp';
import { countWhile, MAX_MATCHED_NAME_CHARS } from './text';
import type { NumericSeries, SeriesPoint } from './types';

export interface Mention {
  series: NumericSeries;
  start: number;
  end: number;
  kind: 'phrase' | 'alias' | 'token';
}

const PHRASE_SCORE = 100;
const TOKEN_SCORE = 50;
/** Name parts that identify nothing on their own ("blood pressure", "count", "z score"). */
const GENERIC = new Set(['blood', 'pressure', 'count', 'level', 'levels', 'rate', 'total', 'serum', 'plasma', 'body', 'mass', 'index', 'score', 'for', 'of', 'the', 'and', 'test', 'result', 'value', 'measurement', 'concentration', 'fasting', 'random', 'percent', 'ratio', 'absolute', 'urine', 'arterial', 'age']);
/** Aliases keyed by a concept token (§6.3): weight→wt/growth/gaining, haemoglobin→hemoglobin/hgb, … */
const ALIASES: ReadonlyArray<[RegExp, readonly string[]]> = [
  [/^(?:weight|wt)$/, ['weight', 'wt', 'weighed', 'weighs', 'weighing', 'growth', 'gaining']],
  [/^(?:haemoglobin|hemoglobin|hgb|hb)$/, ['haemoglobin', 'hemoglobin', 'hgb', 'hb']],
  [/^(?:height|stature)$/, ['height', 'growth', 'growing']],
  [/^cd4$/, ['cd4']],
];
/**
 * What may sit between two coordinated mentions: "weight and height", "weight, height". The second
 * blank run belongs to the connector word: two bare `[\s,]*` in a row could split one long run every
 * way (quadratic backtracking) and accepted nothing more.
 */
const CONNECTOR = /^[\s,]*(?:(?:and|&|as well as|plus|or)[\s,]*)?(?:the\s+)?(?:patient['’]s\s+)?$/i;

export function conceptTokens(concept: string): string[] {
  return concept.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/**
 * Compiled phrase patterns by token list. A series name and its aliases are scanned for in every text
 * a turn gates (answer, question, each In-Depth claim): compiling the Unicode classes each time was the
 * gate's largest cost. Only `matchAll` reads them (it works on a copy), so a shared pattern keeps no state.
 */
const PHRASE_PATTERNS = new Map<string, RegExp>();
const PHRASE_PATTERNS_KEPT = 512;

function phraseRegExp(tokens: readonly string[]): RegExp {
  const key = tokens.join('\u0000');
  let re = PHRASE_PATTERNS.get(key);
  if (!re) {
    const body = tokens.map((t) => `${escapeRegExp(t)}(?:e?s)?`).join('[\\s\\-_/]+');
    re = new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, 'giu');
    if (PHRASE_PATTERNS.size >= PHRASE_PATTERNS_KEPT) PHRASE_PATTERNS.clear();
    PHRASE_PATTERNS.set(key, re);
  }
  return re;
}

function aliasesOf(tokens: readonly string[]): string[] {
  const out = new Set<string>();
  for (const t of tokens) for (const [test, names] of ALIASES) if (test.test(t)) names.forEach((n) => out.add(n));
  return [...out];
}

function spansOf(re: RegExp, text: string): Array<{ start: number; end: number }> {
  return [...text.matchAll(re)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

const ASCII_TOKEN = /^[a-z0-9]+$/;
/** The only non-ASCII characters that case-fold (the `iu` flags) onto ASCII letters: `ſ` and the Kelvin sign. */
const FOLDS_TO_ASCII = /[\u017f\u212a]/;

/**
 * `spansOf(phraseRegExp(tokens), text)`, with the scan skipped when it cannot match: every token is
 * ASCII and one is missing from the lower-cased text (without `ſ` or `K`, a case-insensitive match of
 * ASCII letters is exactly a lower-case substring). A name is scanned for in each text a gate reads.
 */
export function phraseSpans(tokens: readonly string[], text: string, lower: string | null): Array<{ start: number; end: number }> {
  if (tokens.reduce((n, t) => n + t.length, 0) > MAX_MATCHED_NAME_CHARS) return [];
  if (lower !== null && tokens.every((t) => ASCII_TOKEN.test(t)) && tokens.some((t) => !lower.includes(t))) return [];
  return spansOf(phraseRegExp(tokens), text);
}

/**
 * The word that names a multi-word series on its own ("diastolic" for "Diastolic blood pressure"):
 * its first part that is neither generic nor part of any other charted series' name.
 */
function distinctiveToken(series: NumericSeries, universe: readonly NumericSeries[]): string | null {
  const tokens = conceptTokens(series.concept);
  if (tokens.length < 2) return null;
  const others = new Set(universe.filter((u) => u !== series).flatMap((u) => conceptTokens(u.concept)));
  return tokens.find((t) => t.length >= 3 && !GENERIC.has(t) && !others.has(t) && !/^\d+$/.test(t)) ?? null;
}

/**
 * Whether one of `spans` (one pattern's matches: in order, never overlapping) contains the non-empty
 * span `s`. Only the last span starting at or before `s` can, so a binary search replaces a scan of
 * all of them per alias (quadratic on an answer that repeats a name).
 */
function within(spans: ReadonlyArray<{ start: number; end: number }>, s: { start: number; end: number }): boolean {
  const lo = countWhile(spans.length, (i) => spans[i].start <= s.start);
  return lo > 0 && s.end <= spans[lo - 1].end;
}

/**
 * The mentions last computed per series, for its last two texts (the answer and the question) and
 * universe. One gate run asks for the same series in the same text several times over (scoring,
 * domination, trend claims, the question's own mentions), each a handful of regex scans of the whole
 * text; the lists are never mutated, so they are shared.
 */
interface KnownMentions {
  text: string;
  universe: readonly NumericSeries[];
  mentions: readonly Mention[];
}
const KNOWN_MENTIONS = new WeakMap<NumericSeries, KnownMentions[]>();
const TEXTS_REMEMBERED = 2;

function knownMentions(series: NumericSeries, text: string, universe: readonly NumericSeries[]): readonly Mention[] | undefined {
  return KNOWN_MENTIONS.get(series)?.find((k) => k.text === text && k.universe === universe)?.mentions;
}

/** Every mention of one series: its full name, then aliases and its distinctive word outside those. */
function mentionsOf(series: NumericSeries, text: string, universe: readonly NumericSeries[]): readonly Mention[] {
  return knownMentions(series, text, universe) ?? runSteps(mentionSteps(series, text, universe));
}

/** `mentionsOf` with a pause point after each scan of the text (a question can be a megabyte). */
function* mentionSteps(series: NumericSeries, text: string, universe: readonly NumericSeries[]): Steps<readonly Mention[]> {
  const known = knownMentions(series, text, universe);
  if (known) return known;
  const mentions = yield* scanMentions(series, text, universe);
  KNOWN_MENTIONS.set(series, [{ text, universe, mentions }, ...(KNOWN_MENTIONS.get(series) ?? [])].slice(0, TEXTS_REMEMBERED));
  return mentions;
}

function* scanMentions(series: NumericSeries, text: string, universe: readonly NumericSeries[]): Steps<Mention[]> {
  const tokens = conceptTokens(series.concept);
  if (tokens.length === 0) return [];
  const lower = FOLDS_TO_ASCII.test(text) ? null : text.toLowerCase();
  const phrases = phraseSpans(tokens, text, lower).map((s) => ({ series, ...s, kind: 'phrase' as const }));
  yield;
  const outside = (s: { start: number; end: number }) => !within(phrases, s);
  // Alias by alias, in order (as a flatMap over the aliases would list them).
  const aliasSpans: Array<{ start: number; end: number }> = [];
  for (const a of aliasesOf(tokens)) {
    for (const span of phraseSpans([a], text, lower)) aliasSpans.push(span);
    yield;
  }
  const aliases = aliasSpans.filter(outside).map((s) => ({ series, ...s, kind: 'alias' as const }));
  const token = distinctiveToken(series, universe);
  const aliasStarts = new Set(aliases.map((a) => a.start));
  const words = token ? phraseSpans([token], text, lower).filter(outside).filter((s) => !aliasStarts.has(s.start)) : [];
  return [...phrases, ...aliases, ...words.map((s) => ({ series, ...s, kind: 'token' as const }))];
}

/**
 * Mentions of the given series in `text`, in text order (one span may name two series: "growth").
 * `universe` is every charted series, which decides what a single word can name.
 */
export function findMentions(text: string, series: readonly NumericSeries[], universe: readonly NumericSeries[] = series): Mention[] {
  return series.flatMap((s) => mentionsOf(s, text, universe)).sort((a, b) => a.start - b.start || b.end - a.end);
}

function score(series: NumericSeries, text: string, universe: readonly NumericSeries[]): number {
  const mentions = mentionsOf(series, text, universe);
  const phrase = mentions.some((m) => m.kind === 'phrase') ? PHRASE_SCORE + conceptTokens(series.concept).length : 0;
  const token = mentions.some((m) => m.kind === 'token') ? TOKEN_SCORE : 0;
  const aliasHits = new Set(mentions.filter((m) => m.kind === 'alias').map((m) => text.slice(m.start, m.end).toLowerCase())).size;
  return phrase + token + aliasHits;
}

/**
 * A series is dominated when a higher-scoring series with a strict superset of its name tokens covers
 * every one of its mentions ("weight for age" swallows "weight" only if weight is never said alone).
 */
function dominated(candidate: SelectedSeries, others: readonly SelectedSeries[], text: string, universe: readonly NumericSeries[]): boolean {
  const own = mentionsOf(candidate.series, text, universe);
  return others.some((o) => {
    if (o.score <= candidate.score) return false;
    if (!(o.tokens.length > candidate.tokens.length && candidate.tokens.every((t) => o.tokens.includes(t)))) return false;
    const cover = mentionsOf(o.series, text, universe).filter((m) => m.kind === 'phrase');
    return own.every((m) => within(cover, m));
  });
}

function selectFrom(all: readonly NumericSeries[], text: string): SelectedSeries[] {
  const scored = all
    .map((series) => ({ series, score: score(series, text, all), tokens: conceptTokens(series.concept) }))
    .filter((s) => s.score > 0);
  return scored.filter((s) => !dominated(s, scored, text, all));
}

/** Series scored against the answer, falling back to the question when the answer names none. */
export function selectSeries(all: readonly NumericSeries[], answer: string, question: string): SelectedSeries[] {
  return runSteps(selectSeriesSteps(all, answer, question));
}

/** `selectSeries` with a pause point after each scan of the answer or the question. */
export function* selectSeriesSteps(all: readonly NumericSeries[], answer: string, question: string): Steps<SelectedSeries[]> {
  const fromAnswer = yield* selectFromSteps(all, answer);
  return fromAnswer.length > 0 ? fromAnswer : yield* selectFromSteps(all, question);
}

function* selectFromSteps(all: readonly NumericSeries[], text: string): Steps<SelectedSeries[]> {
  // Every series' mentions first, a scan at a time: scoring and domination then read them remembered.
  for (const series of all) yield* mentionSteps(series, text, all);
  return selectFrom(all, text);
}

/**
 * `mentions` in text order with each one's position, per (never mutated) mentions list: sorting it
 * again for every mention and every trend word made long answers cubic.
 */
const ORDERED = new WeakMap<readonly Mention[], { sorted: Mention[]; at: Map<Mention, number> }>();

function ordered(mentions: readonly Mention[]): { sorted: Mention[]; at: Map<Mention, number> } {
  let o = ORDERED.get(mentions);
  if (!o) {
    const sorted = [...mentions].sort((a, b) => a.start - b.start);
    const at = new Map<Mention, number>();
    sorted.forEach((x, i) => {
      if (!at.has(x)) at.set(x, i);
    });
    o = { sorted, at };
    ORDERED.set(mentions, o);
  }
  return o;
}

/** The mentions coordinated with `m` ("weight and height both increased" binds both). */
export function coordinatedGroup(m: Mention, mentions: readonly Mention[], text: string): Mention[] {
  const { sorted, at: position } = ordered(mentions);
  const at = position.get(m) ?? -1;
  if (at < 0) return [m];
  const group = [m];
  for (let i = at - 1; i >= 0 && joins(sorted[i], group[0], text); i--) group.unshift(sorted[i]);
  for (let i = at + 1; i < sorted.length && joins(group[group.length - 1], sorted[i], text); i++) group.push(sorted[i]);
  return group;
}

function joins(a: Mention, b: Mention, text: string): boolean {
  if (a.start === b.start && a.end === b.end) return true; // one word naming two series ("growth")
  if (a.series === b.series || b.start < a.end) return false;
  return CONNECTOR.test(text.slice(a.end, b.start));
}

// ---- patch texts --------------------------------------------------------------------------------

const LIST_LIMIT = 8;
const RECENT_LIMIT = 6;
const ONE_POINT_SENTENCE = 'A trend cannot be determined from one point.';

/** §6.3 single_point_trend patch. */
export function onePointPatch(series: NumericSeries): { answer: string; citations: number[] } {
  const p = series.points[0];
  return { answer: `The chart shows one dated ${series.concept} measurement: ${formatPoint(p)}. ${ONE_POINT_SENTENCE}`, citations: [p.index] };
}

/** §6.3 trend_direction patch: first and last documented points. */
export function trendPatch(series: NumericSeries): { answer: string; citations: number[] } {
  const first = series.points[0];
  const last = series.points[series.points.length - 1];
  const verb = last.value > first.value ? 'increased' : last.value < first.value ? 'decreased' : 'was unchanged';
  return {
    answer: `The documented ${series.concept} series ${verb} from ${formatValue(first.value, first.unit)} on ${first.date} [${first.index}] to ${formatValue(last.value, last.unit)} on ${last.date} [${last.index}].`,
    citations: [first.index, last.index],
  };
}

/**
 * The "series summary" patch of date_format and date_value_binding: the documented points, each as
 * `value on date [i]`, oldest first; long series keep the first, the last and the most recent few.
 */
export function seriesSummaryPatch(series: NumericSeries, trendAsked: boolean): { answer: string; citations: number[] } {
  const pts = series.points;
  if (pts.length === 1) {
    const one = onePointPatch(series);
    return trendAsked ? one : { answer: `The chart shows one dated ${series.concept} measurement: ${formatPoint(pts[0])}.`, citations: one.citations };
  }
  if (pts.length <= LIST_LIMIT) return { answer: `The documented ${series.concept} measurements are: ${list(pts)}.`, citations: pts.map((p) => p.index) };
  const recent = pts.slice(-RECENT_LIMIT);
  const shown = [pts[0], ...recent];
  return {
    answer: `The documented ${series.concept} measurements run from ${formatPoint(pts[0])} to ${formatPoint(pts[pts.length - 1])}; the most recent are: ${list(recent)}.`,
    citations: shown.map((p) => p.index),
  };
}

function list(points: readonly SeriesPoint[]): string {
  return points.map(formatPoint).join('; ');
}
