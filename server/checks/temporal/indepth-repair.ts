/**
 * Safe text repairs of one In-Depth claim (§6.4 steps 1–2 and the Target's underscore dates), and the
 * citation reading the In-Depth gate shares. A repair only ever restores what the chart itself pins
 * down uniquely: a date that is in the date ledger, a record that is the only point matching the
 * claim's value, unit and date. Anything less certain is left for the checks to mark.
 */
import { markerIndices } from '../../answer';
import { escapeRegExp } from '../../regexp';
import { blankMarkers, blankSpans, findIsoDates, isCalendarDate, MAX_MATCHED_NAME_CHARS } from './text';
import type { SeriesPoint, TemporalFacts } from './types';

/** Separators a sampler writes instead of `-` inside an ISO date: underscore and hyphen look-alikes. */
const SEP = '[-_‐‑‒–—―−﹘﹣－]';
/** `2026-01_26`, `2026_01_26`, `2026‑01‑26`; not `D2026_01_26` (an exposed id is date_format's to report). */
const ODD_DATE = new RegExp(`(?<![\\p{L}\\p{N}_.\\-])(\\d{4})(${SEP})(\\d{2})(${SEP})(\\d{2})(?![\\p{L}\\p{N}_])`, 'gu');
/** Every numeric marker, grouped or not, including `[0]` (which is outside any chart). */
/** A claim that ends in an opened, never closed citation marker: `… 71 kg on 2026-03-02 [`. */
const DANGLING = /\[\s*$/;
/** Any attempt at a numeric citation, closed or not. */
const CITATION_ATTEMPT = /\[\s*\d/;

export interface DateRepair {
  text: string;
  from: string;
  to: string;
}

export interface DanglingRepair {
  text: string;
  sourceIndex: number;
  reason: string;
}

/** Cited indices in order of first appearance (groups read too, so warn mode sees what was meant). */
export function citedIndices(text: string): number[] {
  return [...new Set(markerIndices(text).filter((n) => Number.isSafeInteger(n)))];
}

export function hasDanglingBracket(text: string): boolean {
  return DANGLING.test(text.trimEnd());
}

/** ISO dates the facts allow a claim to quote. */
export function ledgerDates(facts: TemporalFacts): Set<string> {
  return new Set([...facts.date_ledger.map((e) => e.iso), ...(facts.date_output_contract.allowed_iso_dates ?? [])]);
}

/**
 * `2026-01_26` → `2026-01-26`, only when the repaired date is a real calendar date in the ledger:
 * then the digits are certainly the chart's date and only the separators were garbled. `first`
 * records the first repair (a claim rarely has two); the text carries all of them.
 */
export function repairOddDates(text: string, ledger: ReadonlySet<string>): DateRepair | null {
  const repairs: Array<{ from: string; to: string }> = [];
  const out = text.replace(ODD_DATE, (whole: string, y: string, s1: string, m: string, s2: string, d: string) => {
    if (s1 === '-' && s2 === '-') return whole;
    const iso = `${y}-${m}-${d}`;
    if (!isCalendarDate(iso) || !ledger.has(iso)) return whole;
    repairs.push({ from: whole, to: iso });
    return iso;
  });
  return repairs.length === 0 ? null : { text: out, ...repairs[0] };
}

/** `71 kg` (spaces optional, µ/μ/u interchangeable), not the start of a longer unit (`kg/m2`). */
function writesValue(text: string, p: SeriesPoint): boolean {
  if (p.unit.trim().length > MAX_MATCHED_NAME_CHARS) return false;
  // A blank run in the unit is one `\s*` (two in a row would share a long run of the claim's blanks).
  const chars = [...p.unit.trim()].filter((c, i, all) => !(i > 0 && /\s/.test(c) && /\s/.test(all[i - 1])));
  const unit = chars.map((c) => (/[µμ]/.test(c) ? '[µμu]' : /\s/.test(c) ? '\\s*' : escapeRegExp(c))).join('');
  const re = new RegExp(`(?<![\\d.,])(\\d+(?:\\.\\d+)?)\\s*${unit}(?![\\p{L}\\p{N}/²³^])`, 'giu');
  return [...text.matchAll(re)].some((m) => Number(m[1]) === p.value);
}

/**
 * §6.4 step 2: a trailing `[` is completed only when the claim cites nothing else, writes ISO dates,
 * and exactly one charted point has its value, its unit and its date written in the claim. Two
 * matching points (ambiguous) or a value in another unit leave the claim as it is.
 */
export function repairDanglingBracket(text: string, facts: TemporalFacts): DanglingRepair | null {
  if (!hasDanglingBracket(text)) return null;
  const body = text.trimEnd().replace(DANGLING, '');
  if (CITATION_ATTEMPT.test(body)) return null;
  const dates = findIsoDates(body);
  if (dates.length === 0) return null;
  const written = new Set(dates.map((d) => d.iso));
  // Date digits and markers are blanked so "2026-03-02" is never read as a value of 2026.
  const values = blankSpans(blankMarkers(body), dates);
  const matches = facts.numeric_series.flatMap((s) =>
    s.points.filter((p) => p.unit.trim() !== '' && written.has(p.date) && writesValue(values, p)).map((p) => ({ concept: s.concept, p })),
  );
  if (matches.length !== 1) return null;
  const { concept, p } = matches[0];
  return {
    text: text.trimEnd().replace(DANGLING, `[${p.index}]`),
    sourceIndex: p.index,
    reason: `Unfinished citation completed with the only ${concept} record matching ${p.value} ${p.unit.trim()} on ${p.date}.`,
  };
}
