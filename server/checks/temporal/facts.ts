/**
 * `temporal_facts` (§6.2): deterministic dates, visits, series and appointment candidates computed from
 * the complete chart and one reference date. The model copies dates from `date_ledger` instead of
 * doing calendar arithmetic, and the gates check its answer against the same object.
 */
import { isCalendarDate, parseDateObservations, parseEvents, parseNumericObservations, type NumericObservation } from './parse';
import { monthsBefore } from './text';
import type {
  AppointmentCandidate,
  ChartEvent,
  DateLedgerEntry,
  DateObservation,
  DateSummary,
  NumericSeries,
  Relation,
  SeriesPoint,
  TemporalFacts,
} from './types';

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAY_MS = 86_400_000;
const MAX_SUMMARIES = 8;
const ENCOUNTER_CLASSES = new Set(['encounter', 'visit']);
const RETURN_VISIT = /return visit/i;
const APPOINTMENT_CONCEPT = /appointment|return visit|follow[- ]?up|scheduled visit/i;

export interface TemporalFactsOptions {
  referenceDate: string | null;
  anchorMode: string;
}

const ISO_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/** `2026-03-02` → `D2026_03_02`. */
export function dateId(iso: string): string {
  // Every ledger date has the ISO shape: sliced, not rewritten by a regex (it runs for every record).
  return ISO_SHAPE.test(iso) ? `D${iso.slice(0, 4)}_${iso.slice(5, 7)}_${iso.slice(8, 10)}` : `D${iso.replace(/-/g, '_')}`;
}

function utcDay(iso: string): number {
  return Date.UTC(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)) - 1, Number(iso.slice(8, 10)));
}


/** Calendar months back, day clamped (one implementation, shared with the gate). */
export { monthsBefore } from './text';


/** Whole days from the reference to the date (positive = after the reference). */
function daysFrom(reference: string | null, iso: string): number | null {
  return reference === null ? null : Math.round((utcDay(iso) - utcDay(reference)) / DAY_MS);
}

export function relationTo(reference: string | null, iso: string): Relation {
  if (reference === null) return 'unknown';
  if (iso < reference) return 'past';
  return iso === reference ? 'today' : 'future';
}

/** One `date_ledger` entry for a date, relative to the reference date (§6.2). */
export function ledgerEntry(iso: string, reference: string | null): DateLedgerEntry {
  const year = Number(iso.slice(0, 4));
  const month = Number(iso.slice(5, 7));
  const day = Number(iso.slice(8, 10));
  return {
    date_id: dateId(iso),
    iso,
    year,
    month,
    month_name: MONTH_NAMES[month - 1],
    day,
    relation_to_reference: relationTo(reference, iso),
    days_from_reference: daysFrom(reference, iso),
  };
}

function buildLedger(reference: string | null, events: readonly ChartEvent[], numeric: readonly NumericObservation[], dateObs: readonly DateObservation[]): DateLedgerEntry[] {
  const dates = new Set<string>();
  if (reference !== null) [reference, monthsBefore(reference, 6), monthsBefore(reference, 12)].forEach((d) => dates.add(d));
  for (const e of events) if (e.date) dates.add(e.date);
  for (const o of numeric) dates.add(o.date);
  for (const o of dateObs) {
    if (o.source_date) dates.add(o.source_date);
    dates.add(o.value_date);
  }
  return [...dates].sort().reverse().map((d) => ledgerEntry(d, reference));
}

/** Events grouped by date, chart order inside a date. */
function byDate(events: readonly ChartEvent[]): Map<string, ChartEvent[]> {
  const groups = new Map<string, ChartEvent[]>();
  for (const e of events) {
    if (!e.date) continue;
    const list = groups.get(e.date) ?? [];
    list.push(e);
    groups.set(e.date, list);
  }
  return groups;
}

function summarise(date: string, events: readonly ChartEvent[], withBodies: boolean): DateSummary {
  const summary: DateSummary = {
    date,
    date_id: dateId(date),
    record_count: events.length,
    indices: events.map((e) => e.index),
    classes: [...new Set(events.map((e) => e.cls))],
  };
  if (withBodies) summary.summaries = events.slice(0, MAX_SUMMARIES).map((e) => e.body);
  return summary;
}

function perDateSummaries(events: readonly ChartEvent[]): DateSummary[] {
  return [...byDate(events).entries()].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0)).map(([d, list]) => summarise(d, list, false));
}

function newestDate(events: readonly ChartEvent[]): string | null {
  let best: string | null = null;
  for (const e of events) if (e.date && (best === null || e.date > best)) best = e.date;
  return best;
}

/** The clinical records of one date, with bodies: what happened on that day. */
function daySummary(date: string | null, clinical: readonly ChartEvent[]): DateSummary | null {
  if (date === null) return null;
  return summarise(
    date,
    clinical.filter((e) => e.date === date),
    true,
  );
}

function isEncounter(e: ChartEvent): boolean {
  return ENCOUNTER_CLASSES.has(e.cls.toLowerCase());
}

/** Float noise (71.1 − 70.9) must not reach the prompt or the gate. */
function roundValue(x: number): number {
  const r = Math.round(x * 1e6) / 1e6;
  return Object.is(r, -0) ? 0 : r;
}

function seriesPoint(o: NumericObservation): SeriesPoint {
  return { index: o.index, date: o.date, effective_date_id: dateId(o.date), value: o.value, unit: o.unit };
}

function direction(points: readonly SeriesPoint[]): NumericSeries['direction'] {
  if (points.length < 2) return 'none';
  const first = points[0].value;
  const last = points[points.length - 1].value;
  return last > first ? 'up' : last < first ? 'down' : 'flat';
}

function buildSeries(concept: string, observations: readonly NumericObservation[]): NumericSeries {
  const points = observations.map(seriesPoint).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.index - b.index));
  const first = points[0];
  const last = points[points.length - 1];
  const values = points.map((p) => p.value);
  const trend = points.length >= 2;
  return {
    concept,
    points,
    n_points: points.length,
    most_recent: last ?? null,
    window: first ? { start: first.date, start_date_id: first.effective_date_id, end: last.date, end_date_id: last.effective_date_id } : null,
    range: first ? { min: Math.min(...values), max: Math.max(...values) } : null,
    trend_supported: trend,
    direction: direction(points),
    delta: trend ? roundValue(last.value - first.value) : null,
  };
}

function compareConcepts(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function numericSeries(numeric: readonly NumericObservation[]): NumericSeries[] {
  const groups = new Map<string, NumericObservation[]>();
  for (const o of numeric) {
    // Appended in place: copying the group per observation was quadratic in a long series.
    const list = groups.get(o.concept);
    if (list) list.push(o);
    else groups.set(o.concept, [o]);
  }
  return [...groups.entries()].sort(([a], [b]) => compareConcepts(a, b)).map(([concept, list]) => buildSeries(concept, list));
}

function candidate(o: DateObservation, reference: string | null): AppointmentCandidate {
  return {
    index: o.index,
    source_date: o.source_date,
    date: o.value_date,
    date_id: dateId(o.value_date),
    concept: o.concept,
    source_type: 'date_observation',
    status: 'candidate',
    relation_to_reference: relationTo(reference, o.value_date),
  };
}

/** Oldest value date first (ties in chart order), so "latest past" is the tail of `past`. */
function appointmentCandidates(dateObs: readonly DateObservation[], reference: string | null): TemporalFacts['appointment_candidates'] {
  const all = dateObs
    .filter((o) => APPOINTMENT_CONCEPT.test(o.concept))
    .map((o) => candidate(o, reference))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.index - b.index));
  const bucket = (r: Relation) => all.filter((c) => c.relation_to_reference === r);
  return { past: bucket('past'), today: bucket('today'), future: bucket('future'), unknown: bucket('unknown'), all };
}

/** Builds the facts object; an impossible reference date is treated as no reference. */
export function buildTemporalFacts(chartText: string, opts: TemporalFactsOptions & { events?: readonly ChartEvent[] }): TemporalFacts {
  const reference = opts.referenceDate !== null && isCalendarDate(opts.referenceDate) ? opts.referenceDate : null;
  // A caller that already parsed the chart (to resolve the anchor) passes its events: parsed once per turn.
  const events = opts.events ?? parseEvents(chartText);
  const numeric = parseNumericObservations(events);
  const dateObs = parseDateObservations(events);
  const clinical = events.filter((e) => !e.administrative);
  return {
    date_output_contract: { copy_dates_verbatim_from_date_ledger: true, date_id_format: 'DYYYY_MM_DD', do_not_reformat_dates: true },
    date_ledger: buildLedger(reference, events, numeric, dateObs),
    anchor_mode: opts.anchorMode,
    reference_date: reference,
    reference_date_id: reference === null ? null : dateId(reference),
    // Only explicit Encounter/Visit records count: a lab or an order on a day is not a visit.
    last_clinical_encounter: daySummary(newestDate(clinical.filter(isEncounter)), clinical),
    latest_clinical_activity: daySummary(newestDate(clinical), clinical),
    clinical_dates: perDateSummaries(clinical),
    admin_dates: perDateSummaries(events.filter((e) => e.administrative)),
    numeric_series: numericSeries(numeric),
    return_visit_dates: dateObs.filter((o) => RETURN_VISIT.test(o.concept)).map((o) => ({ ...o, relation_to_reference: relationTo(reference, o.value_date) })),
    appointment_candidates: appointmentCandidates(dateObs, reference),
  };
}
