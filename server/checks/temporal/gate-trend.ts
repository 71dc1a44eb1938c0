/**
 * The trend branch of the Answer gate (§6.3): single_point_trend, trend_direction and window_scope.
 * A claim is judged against the points it names when it names them ("from 55 kg on D1 to 50 kg on
 * D2", "increased to 52 kg on D3"), otherwise against the whole documented series (or the named
 * past-6/12-month window). Only a contradiction fails; a claim the points cannot settle is left
 * alone, and a verified claim is recorded as an explicit pass (§13.1 #7).
 */
import { makeCheck, noResult, sameValue, type CheckResult, type GateContext, type Patch } from './gate-common';
import { readValues } from './gate-numbers';
import { findMentions, onePointPatch, trendPatch } from './gate-series';
import { acknowledgesNoTrend, trendClaims, type TrendClaim } from './gate-trend-claims';
import { findDateLikeTokens } from './gate-dates';
import { blankMarkers, blankSpans, findIsoDates, monthsBefore, wordsBefore, type IsoDate } from './text';
import type { GateCheck, NumericSeries, SeriesPoint } from './types';

type Verdict = 'agree' | 'disagree' | 'unknown';
type Dir = 'up' | 'down' | 'flat';

const WINDOW = /\b(?:(?:past|last|previous|recent)\s+(?:year|12\s+months|twelve\s+months|6\s+months|six\s+months)|(?:12|twelve|6|six)[\s-]+months?)\b/i;
const START_WORDS = new Set(['since', 'from', 'after', 'starting']);
/**
 * Between a direction word and its first date: "to <value> on" with no start point of its own —
 * a `to` and none of the start words. (The single tempered pattern this replaces re-read the text
 * after every `to` when a start word followed.)
 */
const TO_WORD = /\bto\b/i;
const START_POINT = /\b(?:from|between|since|after)\b/i;

export function checkTrends(ctx: GateContext): CheckResult {
  if (!ctx.trendAsked || ctx.selected.length === 0) return noResult();
  const claims = trendClaims(ctx.answer, ctx.selected, ctx.facts.numeric_series);
  const checks: GateCheck[] = [];
  let patch: Patch | null = null;
  for (const { series } of trendSeries(ctx)) {
    const own = claims.filter((c) => c.series === series);
    const result = series.n_points < 2 ? singlePoint(ctx, series, own) : direction(ctx, series, own);
    if (result.check) checks.push(result.check);
    patch ??= result.patch;
  }
  checks.push(...windowScope(ctx));
  return { checks, patch };
}

/**
 * The selected series trend rules may judge. Claims are still bound against every selected series
 * (so a word about an uncited series is never re-bound to a cited one), but a single In-Depth claim
 * is trend-checked only for a series whose record it cites (§6.4 Target).
 */
function trendSeries(ctx: GateContext): GateContext['selected'] {
  const local = ctx.claimLocal;
  if (!local) return ctx.selected;
  return ctx.selected.filter(({ series }) => series.points.some((p) => local.citations.has(p.index)));
}

// ---- single_point_trend -----------------------------------------------------------------------------

function singlePoint(ctx: GateContext, s: NumericSeries, claims: readonly TrendClaim[]): { check: GateCheck | null; patch: Patch | null } {
  const p = s.points[0];
  if (!p) return { check: null, patch: null };
  const indices = [p.index];
  if (claims.length > 0) {
    const claim = claims[0];
    return {
      check: makeCheck('single_point_trend', 'fail', 'block', claim.sentence.text, `The answer states a ${s.concept} trend ("${claim.word}"), but the chart has one dated ${s.concept} measurement.`, indices),
      patch: onePointPatch(s),
    };
  }
  if (acknowledgesNoTrend(ctx.answer, s, ctx.selected, ctx.facts.numeric_series)) {
    return { check: makeCheck('single_point_trend', 'pass', 'block', s.concept, `The answer correctly does not derive a ${s.concept} trend from one measurement.`, indices), patch: null };
  }
  if (ctx.questionTrend && askedAbout(ctx, s)) {
    // A correct single value that does not say the trend is undeterminable: report, never block.
    return { check: makeCheck('single_point_trend', 'warn', 'warn', s.concept, `The question asks for a trend, the chart has one dated ${s.concept} measurement, and the answer does not say a trend cannot be determined.`, indices), patch: null };
  }
  return { check: null, patch: null };
}

function askedAbout(ctx: GateContext, s: NumericSeries): boolean {
  const named = findMentions(ctx.question, ctx.selected.map((x) => x.series), ctx.facts.numeric_series);
  return named.length === 0 || named.some((m) => m.series === s);
}

// ---- trend_direction --------------------------------------------------------------------------------

function direction(ctx: GateContext, s: NumericSeries, claims: readonly TrendClaim[]): { check: GateCheck | null; patch: Patch | null } {
  let agreed: TrendClaim | null = null;
  const readings = seriesReadings(s);
  for (const c of claims) {
    const verdict = judge(ctx, s, c, readings);
    if (verdict === 'disagree') {
      const patch = trendPatch(s);
      return { check: makeCheck('trend_direction', 'fail', 'block', c.clause.text, `"${c.negated ? 'not ' : ''}${c.word}" contradicts the documented ${s.concept} series (${describe(s)}).`, patch.citations), patch };
    }
    if (verdict === 'agree') agreed ??= c;
  }
  if (!agreed) return { check: null, patch: null };
  const ends = [s.points[0].index, s.points[s.points.length - 1].index];
  return { check: makeCheck('trend_direction', 'pass', 'block', agreed.clause.text, `"${agreed.negated ? 'not ' : ''}${agreed.word}" agrees with the documented ${s.concept} series (${describe(s)}).`, ends), patch: null };
}

function describe(s: NumericSeries): string {
  const a = s.points[0];
  const b = s.points[s.points.length - 1];
  return `${a.value} on ${a.date} to ${b.value} on ${b.date}`;
}

function dirOf(a: number, b: number): Dir {
  return b > a ? 'up' : b < a ? 'down' : 'flat';
}

/** How the claimed direction compares with a true one. */
function compare(c: TrendClaim, truth: Dir): Verdict {
  if (c.direction === 'trend') return 'unknown';
  if (c.negated) return truth === c.direction ? 'disagree' : 'agree';
  return truth === c.direction ? 'agree' : 'disagree';
}

type Value = { value: number; decimals: number };

/**
 * What judging one series reads from a claim's clause and sentence, kept per clause and sentence:
 * claims of one clause share it, and re-reading a long clause per trend word was cubic.
 */
interface SeriesReadings {
  byDate: Map<string, SeriesPoint>;
  clauses: Map<TrendClaim['clause'], { dates: IsoDate[]; anyDate: boolean; values?: Value[] }>;
  windows: Map<TrendClaim['sentence'], number | null>;
}

function seriesReadings(s: NumericSeries): SeriesReadings {
  return { byDate: new Map(s.points.map((p) => [p.date, p])), clauses: new Map(), windows: new Map() };
}

function judge(ctx: GateContext, s: NumericSeries, c: TrendClaim, readings: SeriesReadings): Verdict {
  if (c.direction === 'trend') return 'unknown';
  const byDate = readings.byDate;
  let clause = readings.clauses.get(c.clause);
  if (!clause) {
    const all = findIsoDates(c.clause.text);
    clause = { dates: all.filter((d) => byDate.has(d.iso)), anyDate: all.length > 0 };
    readings.clauses.set(c.clause, clause);
  }
  const dates = clause.dates;
  // "rose to 15.7 on D1 and returned to 15.6 on D2": the word names its own end point, the first
  // date after it; later dates of the clause belong to the next change.
  const endPoint = dates.find((d) => d.start > c.at);
  if (dates.length >= 2 && endPoint && toForm(c.clause.text.slice(c.at + c.word.length, endPoint.start))) {
    return oneDate(c, s, byDate.get(endPoint.iso) as SeriesPoint, []);
  }
  if (dates.length >= 2) {
    const sorted = dates.map((d) => byDate.get(d.iso) as SeriesPoint).sort((a, b) => (a.date < b.date ? -1 : 1));
    return compare(c, dirOf(sorted[0].value, sorted[sorted.length - 1].value));
  }
  // A clause anchored on another event's date ("fell after ART started on D") is about a sub-period
  // the series points cannot settle.
  if (dates.length === 0 && clause.anyDate) return 'unknown';
  const values = (clause.values ??= clauseValues(c, s, ctx.facts.numeric_series));
  if (dates.length === 1) return oneDate(c, s, byDate.get(dates[0].iso) as SeriesPoint, wordsBefore(c.clause.text, dates[0].start, 2));
  if (values.length >= 2) return twoValues(c, s, values[0], values[values.length - 1]);
  if (values.length === 1) return oneValue(c, s, values[0]);
  return wholeSeries(ctx, c, s, readings);
}

function toForm(between: string): boolean {
  return TO_WORD.test(between) && !START_POINT.test(between);
}

/** Values of `s` written in the claim's clause, in mention order. */
function clauseValues(c: TrendClaim, s: NumericSeries, all: readonly NumericSeries[]): Value[] {
  const text = blankSpans(blankMarkers(c.clause.text), [...findIsoDates(c.clause.text), ...findDateLikeTokens(c.clause.text)]);
  const mentions = findMentions(text, [s], all);
  return readValues(text, mentions, [s], all, () => text.length).filter((t) => t.series === s && !t.skip);
}

/**
 * "increased to 52 kg on D" (D ends the change) or "has increased since D" (D starts it). The first
 * documented point can only start a change, whatever the words before it.
 */
function oneDate(c: TrendClaim, s: NumericSeries, p: SeriesPoint, before: string[]): Verdict {
  const pos = s.points.indexOf(p);
  const earlier = s.points.slice(0, pos);
  const later = s.points.slice(pos + 1);
  const start = later.length > 0 && (before.some((w) => START_WORDS.has(w)) || earlier.length === 0);
  if (c.negated) {
    // "has not increased since D" denies the change from D to the latest point.
    return start ? compare(c, dirOf(p.value, later[later.length - 1].value)) : 'unknown';
  }
  if (start) {
    // Lenient like the end-date case: "rising from 8.1% on D" may stop at any later point.
    return later.some((l) => compare(c, dirOf(p.value, l.value)) === 'agree') ? 'agree' : 'disagree';
  }
  if (earlier.length === 0) return 'unknown';
  // Lenient on purpose: any earlier point from which the stated change holds makes the claim fair.
  return earlier.some((e) => compare(c, dirOf(e.value, p.value)) === 'agree') ? 'agree' : 'disagree';
}

function pointsWith(s: NumericSeries, v: { value: number; decimals: number }): SeriesPoint[] {
  return s.points.filter((p) => sameValue(v.value, v.decimals, p.value));
}

/** "increased from 50 to 52 kg": judged on the chronological order of the two documented values. */
function twoValues(c: TrendClaim, s: NumericSeries, a: { value: number; decimals: number }, b: { value: number; decimals: number }): Verdict {
  if (c.negated) return 'unknown';
  const pa = pointsWith(s, a);
  const pb = pointsWith(s, b);
  if (pa.length !== 1 || pb.length !== 1 || pa[0] === pb[0]) return 'unknown';
  const [first, last] = pa[0].date < pb[0].date ? [pa[0], pb[0]] : [pb[0], pa[0]];
  return compare(c, dirOf(first.value, last.value));
}

/** "increased to 52 kg": fair if some earlier point lies in the stated direction of a 52 kg point. */
function oneValue(c: TrendClaim, s: NumericSeries, v: { value: number; decimals: number }): Verdict {
  if (c.negated) return 'unknown';
  const hits = pointsWith(s, v).map((p) => s.points.indexOf(p)).filter((i) => i > 0);
  if (hits.length === 0) return 'unknown';
  const fair = hits.some((i) => s.points.slice(0, i).some((e) => compare(c, dirOf(e.value, s.points[i].value)) === 'agree'));
  return fair ? 'agree' : 'disagree';
}

/** No endpoints named: the whole series, or the past-6/12-month window the sentence names. */
function wholeSeries(ctx: GateContext, c: TrendClaim, s: NumericSeries, readings: SeriesReadings): Verdict {
  let pts = s.points;
  if (!readings.windows.has(c.sentence)) readings.windows.set(c.sentence, namedWindowMonths(c.sentence.text));
  const windowMonths = readings.windows.get(c.sentence) ?? null;
  const ref = ctx.facts.reference_date;
  if (windowMonths !== null && ref !== null) {
    const from = monthsBefore(ref, windowMonths);
    pts = pts.filter((p) => p.date >= from && p.date <= ref);
  }
  if (pts.length < 2) return 'unknown';
  const truth = dirOf(pts[0].value, pts[pts.length - 1].value);
  const allEqual = pts.every((p) => p.value === pts[0].value);
  // A non-monotone series that ends where it began settles neither "rose" nor "fell".
  if (truth === 'flat' && !allEqual && c.direction !== 'flat' && !c.negated) return 'unknown';
  return compare(c, truth);
}

function namedWindowMonths(text: string): number | null {
  const m = WINDOW.exec(text);
  if (!m) return null;
  return /\b(?:6|six)\b/i.test(m[0]) ? 6 : 12;
}

// ---- window_scope -----------------------------------------------------------------------------------

function windowScope(ctx: GateContext): GateCheck[] {
  if (!WINDOW.test(`${ctx.question}\n${ctx.answer}`)) return [];
  return trendSeries(ctx)
    .filter(({ series }) => series.window !== null)
    .map(({ series }) => {
      const w = series.window as NonNullable<NumericSeries['window']>;
      const ends = [series.points[0].index, series.points[series.points.length - 1].index];
      return makeCheck('window_scope', 'warn', 'warn', `${series.concept} over a named time window`, `The documented ${series.concept} window is ${w.start} to ${w.end} (${series.n_points} point${series.n_points === 1 ? '' : 's'}).`, ends);
    });
}
