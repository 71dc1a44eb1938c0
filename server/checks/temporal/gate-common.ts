/**
 * What the Answer gate's check modules share: the per-run context (computed once), the check and
 * patch shapes, and value formatting used in patch texts. Check modules return checks plus at most
 * one patch; `gate.ts` alone decides which patch wins (§6.3 precedence).
 */
import type { CheckStatus, GateCheck, NumericSeries, SeriesPoint, TemporalFacts } from './types';
import { truncateClaim } from './text';

/** A series the answer (or, failing that, the question) talks about. */
export interface SelectedSeries {
  series: NumericSeries;
  score: number;
  tokens: string[];
}

export interface GateContext {
  question: string;
  answer: string;
  facts: TemporalFacts;
  /** ISO dates the answer may quote: the ledger plus `allowed_iso_dates`. */
  ledger: ReadonlySet<string>;
  selected: SelectedSeries[];
  /** Q or A contains a trend word (the trend branch of §6.3). */
  trendAsked: boolean;
  /** The question alone contains a trend word. */
  questionTrend: boolean;
  /** Set when a single In-Depth claim is read on its own (GateInput.claimLocal): the indices it cites. */
  claimLocal?: { citations: ReadonlySet<number> };
}

export interface Patch {
  answer: string;
  citations: number[];
}

export interface CheckResult {
  checks: GateCheck[];
  patch: Patch | null;
}

/** A fresh empty result (never shared, so no caller can mutate another's). */
export function noResult(): CheckResult {
  return { checks: [], patch: null };
}

export function makeCheck(id: string, status: CheckStatus, severity: 'block' | 'warn', claim: string, reason: string, indices: readonly number[]): GateCheck {
  return { id, status, severity, claim: truncateClaim(claim), reason, source_indices: uniqueIndices(indices) };
}

function uniqueIndices(indices: readonly number[]): number[] {
  return [...new Set(indices.filter((i) => Number.isInteger(i) && i > 0))];
}

/** `52 kg`, `350 cells/µL`, or a bare `7.1` when the chart gave no unit. */
export function formatValue(value: number, unit: string): string {
  return unit ? `${value} ${unit}` : `${value}`;
}

/** `52 kg on 2006-05-18 [15]`: the shape every series patch uses, so the gate can re-read it. */
export function formatPoint(p: SeriesPoint): string {
  return `${formatValue(p.value, p.unit)} on ${p.date} [${p.index}]`;
}

/** Equal, or equal after rounding the chart value to the precision the answer wrote (41 for 41.3). */
export function sameValue(written: number, decimals: number, chart: number): boolean {
  if (Math.abs(written - chart) < 1e-9) return true;
  const factor = 10 ** decimals;
  return decimals < decimalsOf(chart) && Math.abs(Math.round(chart * factor) / factor - written) < 1e-9;
}

function decimalsOf(n: number): number {
  const s = String(n);
  const dot = s.indexOf('.');
  return dot < 0 ? 0 : s.length - dot - 1;
}
