/**
 * The patient's exposure (§9.2): active medications, allergies, conditions, age and a fresh weight.
 * From structured QueryStore records (their `raw` record) the exposure is complete; from an inline
 * chart the hub reads only the lines it can classify, so that exposure is never complete (defect
 * §13.1 #5) and a result over it is `limited` at best. Pure: the reference date is an argument.
 */
import { entryForName } from './matching';
import type { ActiveMedication, DrugEntry, PatientExposure } from './types';

/** The evidence fields exposure reads (structurally an `EvidenceRecord`). */
export interface ExposureRecord {
  source: string;
  resourceType: string;
  date: string | null;
  text: string;
  raw: Record<string, unknown>;
}

export interface ExposureInput {
  records: readonly ExposureRecord[];
  preamble: string;
  referenceDate: string;
  entries: readonly DrugEntry[];
  /** null = the weight-aware arm is off (`none`). */
  weightConceptUuid: string | null;
  weightMaxAgeDays: number;
}

const KG_UNITS = new Set(['kg', 'kilogram', 'kilograms']);
const DAY_MS = 86_400_000;

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

function num(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
}

function day(d: string | null): string | null {
  return d !== null && /^\d{4}-\d{2}-\d{2}/.test(d) ? d.slice(0, 10) : null;
}

/** Whole years from a birth date to the reference date. */
export function yearsBetween(birth: string, ref: string): number | null {
  const b = day(birth);
  if (b === null) return null;
  const [by, bm, bd] = b.split('-').map(Number);
  const [ry, rm, rd] = ref.split('-').map(Number);
  const years = ry - by - (rm < bm || (rm === bm && rd < bd) ? 1 : 0);
  return years >= 0 ? years : null;
}

/** A dated weight is fresh when taken on or before the reference date and within the max age. */
function isFresh(date: string, ref: string, maxAgeDays: number): boolean {
  if (date > ref) return false;
  return (Date.parse(`${ref}T00:00:00Z`) - Date.parse(`${date}T00:00:00Z`)) / DAY_MS <= maxAgeDays;
}

function mapMedication(name: string, entries: readonly DrugEntry[]): ActiveMedication {
  const entry = entryForName(name, entries);
  return { name, entryId: entry?.id ?? null, atcCodes: entry ? entry.atcCodes : /^[A-Z]\d{2}[A-Z]{2}\d{2}$/.test(name.trim().toUpperCase()) ? [name.trim().toUpperCase()] : [] };
}

function isStructured(r: ExposureRecord): boolean {
  return typeof r.raw.resourceType === 'string' && r.raw.metadata !== null && typeof r.raw.metadata === 'object';
}

interface Collected {
  ageYears: number | null;
  weight: { date: string; kg: number } | null;
  medications: ActiveMedication[];
  allergies: Set<string>;
  conditions: Set<string>;
}

function keepNewestWeight(c: Collected, date: string | null, kg: number, input: ExposureInput): void {
  if (date === null || !(kg > 0) || !isFresh(date, input.referenceDate, input.weightMaxAgeDays)) return;
  if (!c.weight || date > c.weight.date) c.weight = { date, kg };
}

/** One structured QueryStore record (§9.2 field by field). */
function readStructured(r: ExposureRecord, c: Collected, input: ExposureInput): void {
  const m = r.raw.metadata as Record<string, unknown>;
  const type = String(r.raw.resourceType).toLowerCase();
  if (type === 'patient' && c.ageYears === null) {
    c.ageYears = num(m.age_years) ?? (str(m.birthdate) ? yearsBetween(str(m.birthdate)!, input.referenceDate) : null);
  } else if (type === 'drug_order') {
    const expires = day(str(m.auto_expire_date));
    const stopped = str(m.date_stopped) !== null || /^discontinue$/i.test(str(m.action) ?? '');
    const name = str(m.drug_name) ?? str(m.concept_name);
    if (!stopped && (expires === null || expires >= input.referenceDate) && name !== null) c.medications.push(mapMedication(name, input.entries));
  } else if (type === 'allergy') {
    for (const k of ['allergen_name', 'allergen_non_coded', 'allergen']) if (str(m[k])) c.allergies.add(str(m[k])!.toLowerCase());
  } else if (type === 'condition') {
    const status = (str(m.clinical_status) ?? 'active').toLowerCase();
    if (status !== 'inactive' && status !== 'resolved') for (const k of ['concept_name', 'non_coded']) if (str(m[k])) c.conditions.add(str(m[k])!.toLowerCase());
  } else if (type === 'obs' && input.weightConceptUuid !== null && m.concept_uuid === input.weightConceptUuid) {
    const units = (str(m.units) ?? '').toLowerCase();
    const value = num(m.value_numeric);
    if (KG_UNITS.has(units) && value !== null) keepNewestWeight(c, day(str(r.raw.date) ?? r.date), value, input);
  }
}

const MEDICATION_LINE = /^(?:medications?|drug orders?|current medications?|prescriptions?)\b/i;
const ALLERGY_LINE = /^allerg(?:y|ies)\b/i;
const CONDITION_LINE = /^(?:conditions?|diagnos[ie]s|problems?)\b/i;
const STOPPED = /\b(?:discontinued?|stopped|action:\s*discontinue)\b/i;
const INACTIVE = /status:\s*(?:inactive|resolved)\b/i;
/** Anchored at the value after the line's last colon: an unanchored digit run would be tried at every digit. */
const KG_VALUE = /^(\d+(?:\.\d+)?)\s*(?:kg|kilograms?)\b/i;

/** The text after a line's class (`Medication: x`, `Drug order — x: 5 mg`), up to the first sentence stop. */
function conceptOf(text: string): string {
  const dash = text.indexOf(' — ');
  const colon = text.indexOf(':');
  const at = dash >= 0 && (colon < 0 || dash < colon) ? dash + 3 : colon >= 0 ? colon + 1 : text.length;
  const rest = text.slice(at).trim();
  const stop = rest.search(/\.\s|\.$/);
  return (stop >= 0 ? rest.slice(0, stop) : rest).trim();
}

/** One inline chart line the hub can classify; any other line says nothing about exposure. */
function readInlineLine(r: ExposureRecord, c: Collected, input: ExposureInput): void {
  const text = r.text.trim();
  if (MEDICATION_LINE.test(text)) {
    const name = conceptOf(text);
    if (name !== '' && !STOPPED.test(text)) c.medications.push(mapMedication(name, input.entries));
  } else if (ALLERGY_LINE.test(text)) {
    const allergen = conceptOf(text).toLowerCase();
    if (allergen !== '') c.allergies.add(allergen);
  } else if (CONDITION_LINE.test(text)) {
    const condition = conceptOf(text).toLowerCase();
    if (condition !== '' && !INACTIVE.test(text)) c.conditions.add(condition);
  } else if (input.weightConceptUuid !== null && /^(?:finding\s*—\s*)?weight\b/i.test(text)) {
    const colon = text.lastIndexOf(':');
    const value = KG_VALUE.exec((colon >= 0 ? text.slice(colon + 1) : text).trim());
    if (value) keepNewestWeight(c, day(r.date), Number(value[1]), input);
  } else if (/^patient\b/i.test(text) && c.ageYears === null) {
    c.ageYears = ageFromText(text, input.referenceDate);
  }
}

/** `41-year-old`, `Age: 5`, or `Born 1998-05-30` in a patient line or the chart preamble. */
export function ageFromText(text: string, referenceDate: string): number | null {
  const old = /(\d{1,3})[- ]years?[- ]old\b/i.exec(text);
  if (old) return Number(old[1]);
  const age = /\bage:\s*(\d{1,3})\b/i.exec(text);
  if (age) return Number(age[1]);
  const born = /\bborn\s+(\d{4}-\d{2}-\d{2})\b/i.exec(text);
  return born ? yearsBetween(born[1], referenceDate) : null;
}

export function buildExposure(input: ExposureInput): PatientExposure {
  const c: Collected = { ageYears: null, weight: null, medications: [], allergies: new Set(), conditions: new Set() };
  let structured = 0;
  let inline = 0;
  for (const r of input.records) {
    // Hub-added references (drug references, knowledge-base guidance) are not the patient's records.
    if (r.source === 'drug-safety' || r.resourceType === 'KnowledgeReference') continue;
    if (isStructured(r)) {
      structured++;
      readStructured(r, c, input);
    } else {
      inline++;
      readInlineLine(r, c, input);
    }
  }
  if (c.ageYears === null && input.preamble.trim() !== '') c.ageYears = ageFromText(input.preamble, input.referenceDate);
  const origin = inline > 0 ? 'inline_chart' : structured > 0 ? 'structured' : 'none';
  return {
    origin,
    complete: origin === 'structured',
    ageYears: c.ageYears,
    weightKg: c.weight?.kg ?? null,
    medications: c.medications,
    allergies: [...c.allergies],
    conditions: [...c.conditions],
  };
}
