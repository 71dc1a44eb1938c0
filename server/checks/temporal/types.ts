/**
 * Deterministic temporal facts (§6.1–§6.2) and gate results (§6.3–§6.4). Pure data: computed from the
 * complete chart and one reference date, never from a reduced prompt view, never from the clock.
 */

export type Relation = 'past' | 'today' | 'future' | 'unknown';

/** One numbered chart line as temporal parsing sees it. */
export interface ChartEvent {
  /** 1-based citation index (the `[N]` of the line). */
  index: number;
  /** Own `(YYYY-MM-DD)` prefix or the carried-forward date; null before any date. */
  date: string | null;
  /** Body after the date prefix, `[administrative]`/`[unknown]` markers stripped. */
  body: string;
  /** Text before ` — ` and before `:` (e.g. `Finding`, `Drug order`, `Program`, `Encounter`). */
  cls: string;
  administrative: boolean;
}

export interface DateLedgerEntry {
  date_id: string; // D2026_03_02
  iso: string;
  year: number;
  month: number;
  month_name: string;
  day: number;
  relation_to_reference: Relation;
  days_from_reference: number | null;
}

export interface SeriesPoint {
  index: number;
  date: string;
  effective_date_id: string;
  value: number;
  unit: string;
}

export interface NumericSeries {
  concept: string;
  points: SeriesPoint[]; // oldest → newest
  n_points: number;
  most_recent: SeriesPoint | null;
  window: { start: string; start_date_id: string; end: string; end_date_id: string } | null;
  range: { min: number; max: number } | null;
  trend_supported: boolean; // n ≥ 2
  direction: 'up' | 'down' | 'flat' | 'none';
  delta: number | null;
}

export interface DateObservation {
  index: number;
  source_date: string | null;
  value_date: string;
  concept: string;
  cls: string;
}

export interface DateSummary {
  date: string;
  date_id: string;
  record_count: number;
  indices: number[];
  classes: string[];
  /** ≤ 8 bodies; omitted in per-date lists. */
  summaries?: string[];
}

export interface AppointmentCandidate {
  index: number;
  source_date: string | null;
  date: string; // the value date
  date_id: string;
  concept: string;
  source_type: 'date_observation';
  status: 'candidate';
  relation_to_reference: Relation;
}

export interface TemporalFacts {
  date_output_contract: { copy_dates_verbatim_from_date_ledger: true; date_id_format: 'DYYYY_MM_DD'; do_not_reformat_dates: true; allowed_iso_dates?: string[] };
  date_ledger: DateLedgerEntry[]; // newest first
  anchor_mode: string;
  reference_date: string | null;
  reference_date_id: string | null;
  last_clinical_encounter: DateSummary | null;
  latest_clinical_activity: DateSummary | null;
  clinical_dates: DateSummary[];
  admin_dates: DateSummary[];
  numeric_series: NumericSeries[]; // sorted by concept
  return_visit_dates: Array<DateObservation & { relation_to_reference: Relation }>;
  appointment_candidates: { past: AppointmentCandidate[]; today: AppointmentCandidate[]; future: AppointmentCandidate[]; unknown: AppointmentCandidate[]; all: AppointmentCandidate[] };
}

export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface GateCheck {
  id: string;
  status: CheckStatus;
  severity: 'block' | 'warn';
  claim: string; // ≤ 240 chars
  reason: string;
  source_indices: number[];
}

export type GateMode = 'off' | 'warn' | 'enforce';

export interface TemporalGateResult {
  schema_version: 'temporal_gate.v1';
  mode: GateMode;
  status: 'pass' | 'warn' | 'fail' | 'not_applicable';
  checks: GateCheck[];
  patch_answer: string | null;
  patch_citations: number[];
  /** Added by the engine when it applied (or not) the result. */
  applied?: 'none' | 'patch' | 'fallback';
}

/** What the Answer gate reads (§6.3). */
export interface GateInput {
  question: string;
  /** Prose plus table rows rendered as `cell | cell | …` lines. */
  answer: string;
  /** Citations including table refs. */
  citations: number[];
  facts: TemporalFacts | null;
  mode: GateMode;
  /**
   * In-Depth claim reading (§6.4 Target), absent for the Answer: trend rules run only for a series
   * with a point among `citations`, and a value is bound only to a date written in its own clause.
   */
  claimLocal?: boolean;
}
