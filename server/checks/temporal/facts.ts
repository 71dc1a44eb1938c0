/**
 * `temporal_facts` (§6.2): deterministic dates, visits, series and appointment candidates computed from
 * the complete chart and one reference date. The model copies dates from `date_ledger` instead of
 * doing calendar arithmetic, and the gates check its answer against the same object.
 */
import { isCalendarDate, parseDateObservations, parseEvents, parseNumericObservations, type NumericObservation } from './parse';
import { monthsBefore } from './text';
import { eachInRuns, filterInRuns, mapInRuns, runSteps, type Steps } from '../../event-loop';
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
const ENCOUNTER_CLASS_LENGTHS = new Set([...ENCOUNTER_CLASSES].map((c) => c.length));
const RETURN_VISIT = /return visit/i;
const APPOINTMENT_CONCEPT = /appointment|return visit|follow[- ]?up|scheduled visit/i;

export interface TemporalFactsOptions {
  referenceDate: string | null;
  anchorMode: string;
}

const ISO_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Per-date values asked for again and again within a turn (a chart has a few hundred dates, each
 * read for every record, series point and candidate on it), kept by date text, bounded.
 */
const DATES_KEPT = 4096;
const DATE_IDS = new Map<string, string>();
const UTC_DAYS = new Map<string, number>();

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= DATES_KEPT) cache.clear();
  cache.set(key, value);
  return value;
}

/** `2026-03-02` → `D2026_03_02`. */
export function dateId(iso: string): string {
  const known = DATE_IDS.get(iso);
  if (known !== undefined) return known;
  // Every ledger date has the ISO shape: sliced, not rewritten by a regex.
  const id = ISO_SHAPE.test(iso) ? `D${iso.slice(0, 4)}_${iso.slice(5, 7)}_${iso.slice(8, 10)}` : `D${iso.replace(/-/g, '_')}`;
  return remember(DATE_IDS, iso, id);
}

function utcDay(iso: string): number {
  const known = UTC_DAYS.get(iso);
  if (known !== undefined) return known;
  return remember(UTC_DAYS, iso, Date.UTC(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)) - 1, Number(iso.slice(8, 10))));
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

function* buildLedger(reference: string | null, events: readonly ChartEvent[], numeric: readonly NumericObservation[], dateObs: readonly DateObservation[]): Steps<DateLedgerEntry[]> {
  const dates = new Set<string>();
  if (reference !== null) [reference, monthsBefore(reference, 6), monthsBefore(reference, 12)].forEach((d) => dates.add(d));
  yield* eachInRuns(events, (e) => {
    if (e.date) dates.add(e.date);
  });
  yield* eachInRuns(numeric, (o) => {
    dates.add(o.date);
  });
  yield* eachInRuns(dateObs, (o) => {
    if (o.source_date) dates.add(o.source_date);
    dates.add(o.value_date);
  });
  const sorted = [...dates].sort().reverse();
  yield;
  return yield* mapInRuns(sorted, (d) => ledgerEntry(d, reference));
}

/** Events grouped by date, chart order inside a date. */
function* byDate(events: readonly ChartEvent[]): Steps<Map<string, ChartEvent[]>> {
  const groups = new Map<string, ChartEvent[]>();
  yield* eachInRuns(events, (e) => {
    if (!e.date) return;
    const list = groups.get(e.date);
    if (list) list.push(e);
    else groups.set(e.date, [e]);
  });
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

function* perDateSummaries(events: readonly ChartEvent[]): Steps<DateSummary[]> {
  const groups = [...(yield* byDate(events)).entries()].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0));
  yield;
  return yield* mapInRuns(groups, ([d, list]) => summarise(d, list, false));
}

function newestDate(events: readonly ChartEvent[]): string | null {
  let best: string | null = null;
  for (const e of events) if (e.date && (best === null || e.date > best)) best = e.date;
  return best;
}

/** The clinical records of one date, with bodies: what happened on that day. */
function* daySummary(date: string | null, clinical: readonly ChartEvent[]): Steps<DateSummary | null> {
  if (date === null) return null;
  return summarise(date, yield* filterInRuns(clinical, (e) => e.date === date), true);
}

function isEncounter(e: ChartEvent): boolean {
  // Lower-casing keeps the length of any text that can lower-case to a class name (only `İ` grows, and
  // its combining dot is in neither), so other lengths are answered without lower-casing the class.
  return ENCOUNTER_CLASS_LENGTHS.has(e.cls.length) && ENCOUNTER_CLASSES.has(e.cls.toLowerCase());
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

function* numericSeries(numeric: readonly NumericObservation[]): Steps<NumericSeries[]> {
  const groups = new Map<string, NumericObservation[]>();
  yield* eachInRuns(numeric, (o) => {
    // Appended in place: copying the group per observation was quadratic in a long series.
    const list = groups.get(o.concept);
    if (list) list.push(o);
    else groups.set(o.concept, [o]);
  });
  const series: NumericSeries[] = [];
  for (const [concept, list] of [...groups.entries()].sort(([a], [b]) => compareConcepts(a, b))) {
    series.push(buildSeries(concept, list));
    yield;
  }
  return series;
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
function* appointmentCandidates(dateObs: readonly DateObservation[], reference: string | null): Steps<TemporalFacts['appointment_candidates']> {
  const appointments = yield* filterInRuns(dateObs, (o) => APPOINTMENT_CONCEPT.test(o.concept));
  const all = (yield* mapInRuns(appointments, (o) => candidate(o, reference))).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.index - b.index));
  yield;
  const bucket = (r: Relation) => filterInRuns(all, (c) => c.relation_to_reference === r);
  return { past: yield* bucket('past'), today: yield* bucket('today'), future: yield* bucket('future'), unknown: yield* bucket('unknown'), all };
}

/** Builds the facts object; an impossible reference date is treated as no reference. */
export function buildTemporalFacts(chartText: string, opts: TemporalFactsOptions & { events?: readonly ChartEvent[] }): TemporalFacts {
  // A caller that already parsed the chart (to resolve the anchor) passes its events: parsed once per turn.
  const events = opts.events ?? parseEvents(chartText);
  return factsFromObservations(opts, { events, numeric: parseNumericObservations(events), dateObs: parseDateObservations(events) });
}

/** What the facts are computed from: the chart's events and the observations read from them. */
export interface ChartObservations {
  events: readonly ChartEvent[];
  numeric: readonly NumericObservation[];
  dateObs: readonly DateObservation[];
}

/** The facts object from observations already read (`buildTemporalFacts`, or its sliced variant). */
export function factsFromObservations(opts: TemporalFactsOptions, observations: ChartObservations): TemporalFacts {
  return runSteps(factsSteps(opts, observations));
}

/** `factsFromObservations` with pause points between runs of records (`stepsInSlices` for a large chart). */
export function* factsSteps(opts: TemporalFactsOptions, { events, numeric, dateObs }: ChartObservations): Steps<TemporalFacts> {
  const reference = opts.referenceDate !== null && isCalendarDate(opts.referenceDate) ? opts.referenceDate : null;
  const clinical = yield* filterInRuns(events, (e) => !e.administrative);
  const dateLedger = yield* buildLedger(reference, events, numeric, dateObs);
  // Only explicit Encounter/Visit records count: a lab or an order on a day is not a visit.
  const lastEncounter = yield* daySummary(newestDate(yield* filterInRuns(clinical, isEncounter)), clinical);
  const latestActivity = yield* daySummary(newestDate(clinical), clinical);
  const clinicalDates = yield* perDateSummaries(clinical);
  const adminDates = yield* perDateSummaries(yield* filterInRuns(events, (e) => e.administrative));
  const series = yield* numericSeries(numeric);
  const returnVisits = yield* filterInRuns(dateObs, (o) => RETURN_VISIT.test(o.concept));
  const returnVisitDates = yield* mapInRuns(returnVisits, (o) => ({ ...o, relation_to_reference: relationTo(reference, o.value_date) }));
  const appointments = yield* appointmentCandidates(dateObs, reference);
  return {
    date_output_contract: { copy_dates_verbatim_from_date_ledger: true, date_id_format: 'DYYYY_MM_DD', do_not_reformat_dates: true },
    date_ledger: dateLedger,
    anchor_mode: opts.anchorMode,
    reference_date: reference,
    reference_date_id: reference === null ? null : dateId(reference),
    last_clinical_encounter: lastEncounter,
    latest_clinical_activity: latestActivity,
    clinical_dates: clinicalDates,
    admin_dates: adminDates,
    numeric_series: series,
    return_visit_dates: returnVisitDates,
    appointment_candidates: appointments,
  };
}
