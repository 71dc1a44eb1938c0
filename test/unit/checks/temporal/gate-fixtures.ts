/**
 * Hand-built `TemporalFacts` for the Answer gate tests: only what a case needs is declared, and the
 * derived parts (series summaries, the date ledger, candidate buckets) are computed here the way
 * §6.2 describes, so a fixture cannot contradict itself.
 */
import { runTemporalGate } from '../../../../server/checks/temporal/gate';
import { dateId, ledgerEntry, relationTo } from '../../../../server/checks/temporal/facts';
import { monthsBefore } from '../../../../server/checks/temporal/text';
import type {
  AppointmentCandidate,
  DateSummary,
  GateMode,
  NumericSeries,
  Relation,
  SeriesPoint,
  TemporalFacts,
  TemporalGateResult,
} from '../../../../server/checks/temporal/types';

export interface PointSpec {
  index: number;
  date: string;
  value: number;
  unit?: string;
}

export interface CandidateSpec {
  index: number;
  /** Value date (the appointment/return-visit date). */
  date: string;
  source_date?: string;
  concept?: string;
}

export interface FactsSpec {
  reference?: string | null;
  series?: Record<string, PointSpec[]>;
  /** Encounter/Visit records: the newest date becomes `last_clinical_encounter`. */
  encounters?: Array<{ date: string; index: number }>;
  /** Other clinical records (labs, findings) that only count as activity. */
  activity?: Array<{ date: string; index: number }>;
  candidates?: CandidateSpec[];
  /** Extra ledger dates. */
  dates?: string[];
  /** A ledger with nothing in it (§12: malformed dates are rejected even then). */
  emptyLedger?: boolean;
  allowedIsoDates?: string[];
}

// Date ids, relations and ledger entries are the facts module's own small helpers (no chart parsing):
// reusing them keeps a fixture's ledger in the exact shape the gate reads.
const relation = relationTo;

function makeSeries(concept: string, specs: PointSpec[]): NumericSeries {
  const points: SeriesPoint[] = [...specs]
    .sort((a, b) => (a.date < b.date ? -1 : 1))
    .map((p) => ({ index: p.index, date: p.date, effective_date_id: dateId(p.date), value: p.value, unit: p.unit ?? '' }));
  const first = points[0];
  const last = points[points.length - 1];
  const values = points.map((p) => p.value);
  const delta = points.length >= 2 ? last.value - first.value : null;
  return {
    concept,
    points,
    n_points: points.length,
    most_recent: last ?? null,
    window: first ? { start: first.date, start_date_id: dateId(first.date), end: last.date, end_date_id: dateId(last.date) } : null,
    range: points.length ? { min: Math.min(...values), max: Math.max(...values) } : null,
    trend_supported: points.length >= 2,
    direction: delta === null ? 'none' : delta > 0 ? 'up' : delta < 0 ? 'down' : 'flat',
    delta,
  };
}

function summary(records: Array<{ date: string; index: number }>): DateSummary | null {
  if (records.length === 0) return null;
  const newest = records.map((r) => r.date).sort().pop() as string;
  const on = records.filter((r) => r.date === newest);
  return { date: newest, date_id: dateId(newest), record_count: on.length, indices: on.map((r) => r.index), classes: [], summaries: [] };
}

function candidates(specs: CandidateSpec[], ref: string | null): TemporalFacts['appointment_candidates'] {
  const all: AppointmentCandidate[] = [...specs]
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.index - b.index))
    .map((c) => ({
      index: c.index,
      source_date: c.source_date ?? null,
      date: c.date,
      date_id: dateId(c.date),
      concept: c.concept ?? 'Return visit date',
      source_type: 'date_observation',
      status: 'candidate',
      relation_to_reference: relation(ref, c.date),
    }));
  const bucket = (r: Relation) => all.filter((c) => c.relation_to_reference === r);
  return { past: bucket('past'), today: bucket('today'), future: bucket('future'), unknown: bucket('unknown'), all };
}

export function makeFacts(spec: FactsSpec = {}): TemporalFacts {
  const ref = spec.reference === undefined ? '2006-06-06' : spec.reference;
  const series = Object.entries(spec.series ?? {})
    .map(([concept, pts]) => makeSeries(concept, pts))
    .sort((a, b) => a.concept.localeCompare(b.concept));
  const encounters = spec.encounters ?? [];
  const clinical = [...encounters, ...(spec.activity ?? []), ...series.flatMap((s) => s.points)];
  const cands = spec.candidates ?? [];
  const ledgerDates = new Set<string>([
    ...(ref ? [ref, monthsBefore(ref, 6), monthsBefore(ref, 12)] : []),
    ...clinical.map((r) => r.date),
    ...cands.flatMap((c) => [c.date, ...(c.source_date ? [c.source_date] : [])]),
    ...(spec.dates ?? []),
  ]);
  const ledger = spec.emptyLedger ? [] : [...ledgerDates].sort().reverse().map((iso) => ledgerEntry(iso, ref));
  return {
    date_output_contract: {
      copy_dates_verbatim_from_date_ledger: true,
      date_id_format: 'DYYYY_MM_DD',
      do_not_reformat_dates: true,
      ...(spec.allowedIsoDates ? { allowed_iso_dates: spec.allowedIsoDates } : {}),
    },
    date_ledger: ledger,
    anchor_mode: 'explicit',
    reference_date: ref,
    reference_date_id: ref ? dateId(ref) : null,
    last_clinical_encounter: summary(encounters),
    latest_clinical_activity: summary(clinical),
    clinical_dates: [],
    admin_dates: [],
    numeric_series: series,
    return_visit_dates: cands
      .filter((c) => /return visit/i.test(c.concept ?? 'Return visit date'))
      .map((c) => ({ index: c.index, source_date: c.source_date ?? null, value_date: c.date, concept: c.concept ?? 'Return visit date', cls: 'Assessment', relation_to_reference: relation(ref, c.date) })),
    appointment_candidates: candidates(cands, ref),
  };
}

/**
 * The HIV-clinic fixture most tables use (reference 2006-06-06): weight falls 45 → 43 → 41 kg, one
 * height and one CD4 value, visits on three dates, and a return visit on 2006-06-01 (recorded at
 * the 2006-05-18 visit, record [5]) that is already past.
 */
export const CLINIC: FactsSpec = {
  reference: '2006-06-06',
  series: {
    Weight: [
      { index: 20, date: '2006-03-03', value: 45, unit: 'kg' },
      { index: 12, date: '2006-04-13', value: 43, unit: 'kg' },
      { index: 3, date: '2006-05-18', value: 41, unit: 'kg' },
    ],
    Height: [{ index: 21, date: '2006-03-03', value: 150, unit: 'cm' }],
    'CD4 count': [{ index: 18, date: '2006-03-03', value: 350, unit: 'cells/µL' }],
  },
  encounters: [
    { date: '2006-03-03', index: 22 },
    { date: '2006-04-13', index: 13 },
    { date: '2006-05-18', index: 4 },
  ],
  activity: [{ date: '2006-05-25', index: 2 }],
  candidates: [
    { index: 14, date: '2006-05-18', source_date: '2006-04-13' },
    { index: 5, date: '2006-06-01', source_date: '2006-05-18' },
  ],
};

export const clinicFacts = (over: Partial<FactsSpec> = {}) => makeFacts({ ...CLINIC, ...over });

export function gate(facts: TemporalFacts | null, question: string, answer: string, mode: GateMode = 'enforce', citations: number[] = []): TemporalGateResult {
  return runTemporalGate({ question, answer, citations, facts, mode });
}

/** `id:status` of every check, in order — the compact shape the tables assert. */
export function verdicts(r: TemporalGateResult): string[] {
  return r.checks.map((c) => `${c.id}:${c.status}`);
}

/** Failing check ids only. */
export function failures(r: TemporalGateResult): string[] {
  return r.checks.filter((c) => c.status === 'fail').map((c) => c.id);
}

/** Gates the result's own patch again with the same question and facts. */
export function regate(facts: TemporalFacts, question: string, r: TemporalGateResult): TemporalGateResult {
  if (r.patch_answer === null) throw new Error('no patch to re-gate');
  return runTemporalGate({ question, answer: r.patch_answer, citations: r.patch_citations, facts, mode: 'enforce' });
}
