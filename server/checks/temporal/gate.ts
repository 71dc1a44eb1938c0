/**
 * The temporal Answer gate (§6.3): deterministic checks of an answer against `temporal_facts`, and
 * the rule for applying the result to a draft. Pure: plain data in, plain data out.
 *
 * Checks that ran and found the answer correct are recorded as explicit `pass` checks (§13.1 #7),
 * so a verified trend or last-visit date shows as checked rather than `not_applicable`. Patch texts
 * are written so that the gate passes them when they are gated again.
 */
import { runSteps, type Steps } from '../../event-loop';
import type { CheckResult, GateContext, Patch } from './gate-common';
import { checkDateFormat } from './gate-dates';
import { seriesSummaryPatch, selectSeriesSteps } from './gate-series';
import { checkTrends } from './gate-trend';
import { hasTrendWord } from './gate-trend-claims';
import { checkDateValues } from './gate-values';
import { checkLastVisit, checkUpcoming } from './gate-visits';
import type { GateCheck, GateInput, GateMode, TemporalFacts, TemporalGateResult } from './types';


/** The fixed text shown when an enforced gate fails without a patch (§6.3 Applying). */
export const TEMPORAL_FALLBACK_ANSWER =
  'I cannot safely answer this temporal question because deterministic temporal validation found a contradiction in the draft answer. Please verify against the chart.';

export type TemporalGateApplied = 'none' | 'patch' | 'fallback';

export interface TemporalGateDraft<B> {
  answer: string;
  citations: number[];
  blocks: B[];
}

export interface AppliedTemporalGate<B> extends TemporalGateDraft<B> {
  applied: TemporalGateApplied;
  /** True when the draft was replaced (patch or fallback). */
  changed: boolean;
}

function emptyResult(mode: GateMode): TemporalGateResult {
  return { schema_version: 'temporal_gate.v1', mode, status: 'not_applicable', checks: [], patch_answer: null, patch_citations: [] };
}

function* gateContext(input: GateInput, facts: TemporalFacts): Steps<GateContext> {
  const ledger = new Set([...facts.date_ledger.map((e) => e.iso), ...(facts.date_output_contract.allowed_iso_dates ?? [])]);
  const questionTrend = hasTrendWord(input.question);
  yield;
  const selected = yield* selectSeriesSteps(facts.numeric_series, input.answer, input.question);
  return {
    question: input.question,
    answer: input.answer,
    facts,
    ledger,
    selected,
    trendAsked: questionTrend || hasTrendWord(input.answer),
    questionTrend,
    ...(input.claimLocal ? { claimLocal: { citations: new Set(input.citations) } } : {}),
  };
}

function statusOf(checks: readonly GateCheck[]): TemporalGateResult['status'] {
  if (checks.some((c) => c.status === 'fail')) return 'fail';
  if (checks.some((c) => c.status === 'warn')) return 'warn';
  return checks.length > 0 ? 'pass' : 'not_applicable';
}

/** date_format has no patch of its own: with exactly one selected series, the series summary. */
function dateFormatFallback(ctx: GateContext, format: CheckResult): Patch | null {
  if (!format.checks.some((c) => c.status === 'fail') || ctx.selected.length !== 1) return null;
  return seriesSummaryPatch(ctx.selected[0].series, ctx.trendAsked);
}

export function runTemporalGate(input: GateInput): TemporalGateResult {
  return runSteps(temporalGateSteps(input));
}

/**
 * `runTemporalGate` with a pause point after each check (`stepsInSlices` for a long answer or a large
 * chart, where each check reads the whole answer and the facts of thousands of records).
 */
export function* temporalGateSteps(input: GateInput): Steps<TemporalGateResult> {
  if (input.mode === 'off' || input.facts === null) return emptyResult(input.mode);
  const ctx = yield* gateContext(input, input.facts);
  yield;
  const format = checkDateFormat(ctx);
  yield;
  const upcoming = checkUpcoming(ctx);
  yield;
  const lastVisit = checkLastVisit(ctx);
  yield;
  const trend = checkTrends(ctx);
  yield;
  const values = checkDateValues(ctx);
  const checks = [...format.checks, ...upcoming.checks, ...lastVisit.checks, ...trend.checks, ...values.checks];
  const status = statusOf(checks);
  // §6.3 precedence: upcoming, last visit, trend, date-format fallback, date-value.
  const patch = status === 'fail' ? (upcoming.patch ?? lastVisit.patch ?? trend.patch ?? dateFormatFallback(ctx, format) ?? values.patch) : null;
  return {
    schema_version: 'temporal_gate.v1',
    mode: input.mode,
    status,
    checks,
    patch_answer: patch?.answer ?? null,
    patch_citations: patch ? [...new Set(patch.citations)] : [],
  };
}

/**
 * §6.3 Applying (Answer only): `enforce` + `fail` replaces the draft with the patch (tables cleared,
 * since they may repeat the contradiction) or, without a patch, with the fixed fallback sentence and
 * no citations. `warn` never edits: its patch is advisory.
 */
export function applyTemporalGate<B>(result: TemporalGateResult, draft: TemporalGateDraft<B>): AppliedTemporalGate<B> {
  if (result.mode !== 'enforce' || result.status !== 'fail') return { ...draft, applied: 'none', changed: false };
  if (result.patch_answer !== null) {
    return { answer: result.patch_answer, citations: [...result.patch_citations], blocks: [], applied: 'patch', changed: true };
  }
  return { answer: TEMPORAL_FALLBACK_ANSWER, citations: [], blocks: [], applied: 'fallback', changed: true };
}
