/**
 * Temporal facts in prompts and in the trace (§6.2). The prompt block is compact JSON (no
 * whitespace) behind one instruction sentence; it sits first in the shared context message, so it
 * must be byte-stable for identical inputs (decision 8) — plain key order, no timestamps.
 */
import type { DateSummary, NumericSeries, TemporalFacts } from './types';

export type TemporalRender = 'full' | 'compact';

/** How many past appointment candidates the compact view keeps (the newest ones). */
const COMPACT_PAST_CANDIDATES = 5;

const INSTRUCTION =
  'TEMPORAL FACTS: the JSON below is deterministic, computed by the hub from the complete chart ' +
  'and the reference date (not written by a model). When you write a date, copy its `iso` value ' +
  'from `date_ledger` verbatim (YYYY-MM-DD); never reformat dates, never invent dates outside the ' +
  'ledger, and never show `date_id` values (DYYYY_MM_DD) in the answer.';

function withoutClasses(s: DateSummary): Pick<DateSummary, 'date' | 'date_id' | 'record_count' | 'indices'> {
  return { date: s.date, date_id: s.date_id, record_count: s.record_count, indices: s.indices };
}

/** Reduced view: per-date lists without classes; appointment counts plus future, today and the latest past. */
export function compactTemporalView(facts: TemporalFacts): Record<string, unknown> {
  const c = facts.appointment_candidates;
  const bounded = promptTemporalView(facts);
  return {
    ...bounded,
    clinical_dates: (bounded.clinical_dates as DateSummary[]).map(withoutClasses),
    admin_dates: (bounded.admin_dates as DateSummary[]).map(withoutClasses),
    appointment_candidates: {
      counts: candidateCounts(facts),
      future: c.future,
      today: c.today,
      latest_past: c.past.slice(-COMPACT_PAST_CANDIDATES),
    },
  };
}

/**
 * Bounds on what the prompt shows. The facts are computed from the whole chart (and the gates use
 * all of them), but the block sits in every prompt of the answer: on a chart of thousands of records,
 * per-date index lists and long series would crowd out the evidence itself. Small charts are shown
 * unchanged; a trimmed list says how much it left out.
 */
const SHOWN = { dates: 16, indicesPerDate: 12, classesPerDate: 8, seriesPoints: 12, ledger: 48, candidates: 10 } as const;

function trimmedList<T>(list: readonly T[], keep: number, newestFirst: boolean): { items: T[]; omitted: number } {
  if (list.length <= keep) return { items: [...list], omitted: 0 };
  return { items: newestFirst ? list.slice(0, keep) : list.slice(-keep), omitted: list.length - keep };
}

function boundedSummary(s: DateSummary): DateSummary {
  if (s.indices.length <= SHOWN.indicesPerDate && s.classes.length <= SHOWN.classesPerDate) return s;
  return { ...s, indices: s.indices.slice(0, SHOWN.indicesPerDate), classes: s.classes.slice(0, SHOWN.classesPerDate) };
}

function boundedDates(list: readonly DateSummary[]): { items: DateSummary[]; omitted: number } {
  const t = trimmedList(list, SHOWN.dates, true);
  return { items: t.items.map(boundedSummary), omitted: t.omitted };
}

function boundedSeries(s: NumericSeries): NumericSeries & { points_omitted?: number } {
  const t = trimmedList(s.points, SHOWN.seriesPoints, false);
  return t.omitted ? { ...s, points: t.items, points_omitted: t.omitted } : s;
}

/** The facts as the prompt shows them: identical for small charts, trimmed (with counts) for large ones. */
export function promptTemporalView(facts: TemporalFacts): Record<string, unknown> {
  const clinical = boundedDates(facts.clinical_dates);
  const admin = boundedDates(facts.admin_dates);
  const ledger = trimmedList(facts.date_ledger, SHOWN.ledger, true);
  const c = facts.appointment_candidates;
  const past = trimmedList(c.past, SHOWN.candidates, false);
  const all = trimmedList(c.all, SHOWN.candidates, false);
  const view: Record<string, unknown> = {
    ...facts,
    date_ledger: ledger.items,
    last_clinical_encounter: facts.last_clinical_encounter && boundedSummary(facts.last_clinical_encounter),
    latest_clinical_activity: facts.latest_clinical_activity && boundedSummary(facts.latest_clinical_activity),
    clinical_dates: clinical.items,
    admin_dates: admin.items,
    numeric_series: facts.numeric_series.map(boundedSeries),
    appointment_candidates: { ...c, past: past.items, all: all.items },
  };
  const omitted = { date_ledger: ledger.omitted, clinical_dates: clinical.omitted, admin_dates: admin.omitted, past_candidates: past.omitted };
  if (Object.values(omitted).some((n) => n > 0)) view.omitted_older_entries = omitted;
  return view;
}

/** The prompt block: the instruction sentence and a fenced JSON block of the facts. */
export function renderTemporalFacts(facts: TemporalFacts, mode: TemporalRender): string {
  const view = mode === 'compact' ? compactTemporalView(facts) : promptTemporalView(facts);
  return `${INSTRUCTION}\n\`\`\`json\n${JSON.stringify(view)}\n\`\`\``;
}

function candidateCounts(facts: TemporalFacts): Record<keyof TemporalFacts['appointment_candidates'], number> {
  const c = facts.appointment_candidates;
  return { past: c.past.length, today: c.today.length, future: c.future.length, unknown: c.unknown.length, all: c.all.length };
}

export interface TemporalFactsSummary {
  anchor_mode: string;
  reference_date: string | null;
  date_ledger_count: number;
  last_clinical_encounter: string | null;
  latest_clinical_activity: string | null;
  appointment_candidates: Record<keyof TemporalFacts['appointment_candidates'], number>;
  numeric_series: Array<Pick<NumericSeries, 'concept' | 'n_points' | 'direction' | 'window'>>;
}

/** What the trace keeps (§11.2): counts, dates and series shapes — no record bodies. */
export function temporalFactsSummary(facts: TemporalFacts): TemporalFactsSummary {
  return {
    anchor_mode: facts.anchor_mode,
    reference_date: facts.reference_date,
    date_ledger_count: facts.date_ledger.length,
    last_clinical_encounter: facts.last_clinical_encounter?.date ?? null,
    latest_clinical_activity: facts.latest_clinical_activity?.date ?? null,
    appointment_candidates: candidateCounts(facts),
    numeric_series: facts.numeric_series.map((s) => ({ concept: s.concept, n_points: s.n_points, direction: s.direction, window: s.window })),
  };
}
