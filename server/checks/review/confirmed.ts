/**
 * Earliest/latest statements the dated series confirm (§7.3 Target). Small reviewers often flag a
 * correct "earliest 74 kg on 2026-01-10" because they misread the chart order; the hub knows the
 * series from the complete chart (§6.2), tells the reviewer, and sets aside flags against them.
 */
import { formatValue, type SeriesPoint, type TemporalFacts } from '../temporal';

export interface ConfirmedStatement {
  concept: string;
  kind: 'earliest' | 'latest';
  value: number;
  unit: string;
  date: string;
  /** 1-based chart citation of the point. */
  index: number;
  /** `Weight (kg): earliest 74 kg on 2026-01-10 [2]`. */
  text: string;
}

/** Keeps the reviewer prompt bounded on charts with many measured concepts. */
const DEFAULT_MAX_SERIES = 40;

export const CONFIRMED_HEADER = '=== CONFIRMED BY THE DATED SERIES (correct; do not flag) ===';

function statement(concept: string, kind: ConfirmedStatement['kind'], p: SeriesPoint): ConfirmedStatement {
  return {
    concept,
    kind,
    value: p.value,
    unit: p.unit,
    date: p.date,
    index: p.index,
    text: `${concept}: ${kind} ${formatValue(p.value, p.unit)} on ${p.date} [${p.index}]`,
  };
}

/** For each non-empty series (facts order, at most `maxSeries`): its earliest point and, if another, its latest. */
export function confirmedStatements(facts: TemporalFacts | null, opts: { maxSeries?: number } = {}): ConfirmedStatement[] {
  if (!facts) return [];
  const max = Math.max(0, Math.floor(opts.maxSeries ?? DEFAULT_MAX_SERIES));
  const out: ConfirmedStatement[] = [];
  let taken = 0;
  for (const series of facts.numeric_series) {
    if (taken >= max) break;
    const points = series.points;
    if (points.length === 0) continue; // an empty series confirms nothing and does not use the budget
    taken++;
    // Points are oldest → newest (§6.2), so the ends of the list are the earliest and latest.
    out.push(statement(series.concept, 'earliest', points[0]));
    if (points.length > 1) out.push(statement(series.concept, 'latest', points[points.length - 1]));
  }
  return out;
}

/** The reviewer-prompt block: '' when nothing is confirmed, so the prompt carries no empty heading. */
export function renderConfirmed(statements: readonly ConfirmedStatement[]): string {
  if (statements.length === 0) return '';
  return [CONFIRMED_HEADER, ...statements.map((s) => s.text)].join('\n');
}

const ISO_DATE = /(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)/g;
/** Whole numbers only: the lookbehind keeps `74` out of `174` and `1.74`; greedy digits keep it out of `745`. */
const NUMBER = /(?<![\d.])\d+(?:\.\d+)?/g;

/**
 * The first confirmed statement whose value (as a whole number token: `74` or `74.0`, not `174`) and
 * ISO date both occur in `text`; null when none does. Dates and citation markers are removed before
 * reading numbers, so `2026-01-10` never supplies a value of 10 and `[74]` never supplies 74.
 */
export function confirmedMentioned(text: string, statements: readonly ConfirmedStatement[]): ConfirmedStatement | null {
  const plain = text.normalize('NFKC');
  const dates = new Set(plain.match(ISO_DATE) ?? []);
  if (dates.size === 0) return null;
  const numbers = (plain.replace(ISO_DATE, ' ').replace(/\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]/g, ' ').match(NUMBER) ?? []).map(Number);
  for (const s of statements) {
    if (dates.has(s.date) && numbers.some((n) => Math.abs(n - s.value) < 1e-9)) return s;
  }
  return null;
}
