/**
 * Temporal parsing of the rendered full chart (§6.1): chart lines → events, numeric observations and
 * date-valued observations. Always fed the complete chart text, never a reduced prompt view, so the
 * facts do not depend on what the selector happened to keep.
 */
import type { ChartEvent, DateObservation } from './types';

/** A numeric `<concept>: <number> <unit>` observation of one event. */
export interface NumericObservation {
  index: number;
  date: string;
  concept: string;
  value: number;
  unit: string;
  cls: string;
}

/**
 * `[N] body`. `(\S.*)?` rather than `(.*)`: the body starts after every leading blank, so `\s*` and
 * the body cannot trade a blank run back and forth when a line break later makes the line fail.
 */
const RECORD_LINE = /^\[(\d+)\]\s*(\S.*)?$/;
const DATE_PREFIX = /^\((\d{4}-\d{2}-\d{2})\)\s*/;
/**
 * The Querystore serializer appends the marker last (§5.4), so only a trailing one counts. Tried
 * only from the start of a blank run (where the leftmost match begins anyway), not from each blank.
 */
const DATE_KIND_MARKER = /(?<!\s)\s*\[(?:administrative|unknown)\]\s*$/i;
const CLASS_SEPARATOR = ' — ';
/**
 * Records the hub appends after the patient records (§5.1 knowledge references, §5.6 drug
 * references) are not chart events: dateless, they would otherwise inherit the last chart date.
 */
const REFERENCE_RECORD = /^(?:KnowledgeReference\b|Drug reference\b)/i;
const ISO_DATE_GLOBAL = /(?<![\d-])(\d{4}-\d{2}-\d{2})(?![\d])/g;
const LEADING_ISO_DATE = /^\d{4}-\d{2}-\d{2}/;
/**
 * The number must end at a boundary, so codes (`1.2.3`, regimen `3TC/AZT`, `1a`), ranges (`10-20`)
 * and ratios (`120/80`) are not read as measurements; `72/min` and `98%` still are.
 */
const LEADING_NUMBER = /^([+-]?\d+(?:\.\d+)?)(?=$|[\s%,;)]|\.(?!\d)|\/(?!\d))/;
const GROUP_OPEN = /\(part of:/gi;
const LINE_BREAKS = ['\n', '\r', '\u2028', '\u2029'];
const YES_NO = /^\(?\s*(?:yes|no)\b/i;
/** Orders state doses, not measurements (`Drug order — Paracetamol: 500 mg` is no series). */
const ORDER_CLASS = /^(?:drug order|medication)/i;

/** True for a real calendar date `YYYY-MM-DD` (rejects `2026-02-30`, `2026-13-01`). */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The ASCII digit at `i` as a number, -1 for anything else. */
function digitAt(s: string, i: number): number {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

/** Digits `from`..`to` (exclusive) as a number, -1 when one is not an ASCII digit. */
function digitsAt(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = digitAt(s, i);
    if (d < 0) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * A real calendar date in `YYYY-MM-DD` form (called for every dated line and date-like value): read by
 * character codes, no pattern, slice or Date object.
 */
export function isCalendarDate(s: string): boolean {
  if (s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  const y = digitsAt(s, 0, 4);
  const m = digitsAt(s, 5, 7);
  const d = digitsAt(s, 8, 10);
  if (y < 0 || m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= (m === 2 && leap ? 29 : DAYS_IN_MONTH[m - 1]);
}

/** `cls`: text before ` — ` and before `:` (§6.1). */
export function eventClass(body: string): string {
  let head = body;
  const dash = head.indexOf(CLASS_SEPARATOR);
  if (dash >= 0) head = head.slice(0, dash);
  const colon = head.indexOf(':');
  if (colon >= 0) head = head.slice(0, colon);
  return head.trim();
}

/** Program enrolment dates are bookkeeping, not care (`Program`, `Program enrollment`). */
function isAdministrativeClass(cls: string): boolean {
  return /^program\b/i.test(cls);
}

/** Splits `[N] (date) body` into its parts; null for a non-record line. */
function splitRecordLine(line: string): { index: number; ownDate: string | null; rest: string } | null {
  const m = RECORD_LINE.exec(line.trim());
  if (!m) return null;
  const index = Number(m[1]);
  const body = m[2] ?? '';
  const d = DATE_PREFIX.exec(body);
  if (!d) return { index, ownDate: null, rest: body };
  // An impossible date prefix is dropped rather than trusted: the line then inherits like a dateless one.
  return { index, ownDate: isCalendarDate(d[1]) ? d[1] : null, rest: body.slice(d[0].length) };
}

/**
 * Every numbered line as an event. Dateless lines inherit the most recent preceding date (the
 * module's run-length compression, clients.md §3); numbered lines before any date are ignored.
 */
export function parseEvents(chartText: string): ChartEvent[] {
  const events: ChartEvent[] = [];
  let current: string | null = null;
  // A string split when the text has no CR (the usual chart): the same lines as the pattern's split.
  for (const line of chartText.includes('\r') ? chartText.split(/\r?\n/) : chartText.split('\n')) {
    const rec = splitRecordLine(line);
    if (!rec) continue;
    if (rec.ownDate) current = rec.ownDate;
    if (!current || REFERENCE_RECORD.test(rec.rest)) continue;
    const marked = rec.rest.includes('[') && DATE_KIND_MARKER.test(rec.rest);
    const body = (marked ? rec.rest.replace(DATE_KIND_MARKER, '') : rec.rest).trim();
    const cls = eventClass(body);
    events.push({ index: rec.index, date: current, body, cls, administrative: marked || isAdministrativeClass(cls) });
  }
  return events;
}

/** `<concept>: <value>` after an optional `Class — ` prefix; null when the body has no such pair. */
export function conceptValue(body: string): { concept: string; value: string } | null {
  const dash = body.indexOf(CLASS_SEPARATOR);
  const tail = dash >= 0 ? body.slice(dash + CLASS_SEPARATOR.length) : body;
  const colon = tail.indexOf(':');
  if (colon <= 0) return null;
  const concept = tail.slice(0, colon).trim();
  if (!concept) return null;
  return { concept, value: tail.slice(colon + 1).trim() };
}

/** `Weight (kg), WT)` → `Weight`: the concept name proper, before its first ` (`. */
function numericConcept(raw: string): string {
  const cut = raw.indexOf(' (');
  return (cut >= 0 ? raw.slice(0, cut) : raw).trim();
}

/**
 * `s.replace(/\s*\(part of:.*\)\s*$/i, '')` up to blanks the caller trims, by hand: the pattern
 * re-read the rest of the line from every blank and every `(part of:`. It matches from the first
 * `(part of:` after the last line break (`.` stops at one) when a `)` is the last non-blank.
 */
function withoutGroupSuffix(s: string): string {
  const close = s.trimEnd().length - 1;
  if (close < 0 || s[close] !== ')') return s;
  GROUP_OPEN.lastIndex = Math.max(...LINE_BREAKS.map((b) => s.lastIndexOf(b, close))) + 1;
  const open = GROUP_OPEN.exec(s);
  GROUP_OPEN.lastIndex = 0;
  return open && open.index + open[0].length <= close ? s.slice(0, open.index) : s;
}

function numericValue(value: string): { value: number; unit: string } | null {
  if (LEADING_ISO_DATE.test(value)) return null;
  const m = LEADING_NUMBER.exec(value);
  if (!m) return null;
  const unit = withoutGroupSuffix(value.slice(m[1].length)).trim();
  // Coded Yes/No answers (`1 (Yes)`) are assessments, not measurements.
  if (YES_NO.test(unit)) return null;
  return { value: Number(m[1]), unit };
}

function numericObservation(e: ChartEvent): NumericObservation | null {
  if (!e.date || ORDER_CLASS.test(e.cls)) return null;
  const cv = conceptValue(e.body);
  if (!cv || YES_NO.test(cv.value)) return null;
  const concept = numericConcept(cv.concept);
  const num = numericValue(cv.value);
  if (!concept || !num) return null;
  return { index: e.index, date: e.date, concept, value: num.value, unit: num.unit, cls: e.cls };
}

/**
 * Numeric observations in chart order, one per (concept, date): the first line wins, so a repeated
 * value in an obs group or a copied vital does not double a series point. Concepts compare
 * case-insensitively; the first spelling seen is kept. Fed in runs (a large chart is read in slices),
 * the result is the same as one pass over all the events.
 */
export class NumericObservations {
  readonly out: NumericObservation[] = [];
  private readonly spelling = new Map<string, string>();
  private readonly seen = new Set<string>();

  add(events: readonly ChartEvent[]): void {
    for (const e of events) {
      const obs = numericObservation(e);
      if (!obs) continue;
      const key = obs.concept.toLowerCase();
      const concept = this.spelling.get(key) ?? obs.concept;
      this.spelling.set(key, concept);
      const seenKey = `${key}\u0000${obs.date}`;
      if (this.seen.has(seenKey)) continue;
      this.seen.add(seenKey);
      this.out.push({ ...obs, concept });
    }
  }
}

export function parseNumericObservations(events: readonly ChartEvent[]): NumericObservation[] {
  const parsed = new NumericObservations();
  parsed.add(events);
  return parsed.out;
}

/** Distinct calendar dates in a value, in order of appearance. */
function valueDates(value: string): string[] {
  const dates: string[] = [];
  // Most values (`71 kg`) hold no dash, so no date: no scan.
  if (!value.includes('-')) return dates;
  for (const m of value.matchAll(ISO_DATE_GLOBAL)) {
    if (isCalendarDate(m[1]) && !dates.includes(m[1])) dates.push(m[1]);
  }
  return dates;
}

/**
 * Date-valued observations: one per distinct ISO date inside a `<concept>: <value>` value. Every date
 * is kept (not only the first) because the date ledger must hold any date the model may quote.
 */
export function parseDateObservations(events: readonly ChartEvent[]): DateObservation[] {
  const out: DateObservation[] = [];
  for (const e of events) {
    // A value date needs a dash, and the value is part of the body: most bodies are skipped unread.
    if (!e.body.includes('-')) continue;
    const cv = conceptValue(e.body);
    if (!cv) continue;
    for (const d of valueDates(cv.value)) out.push({ index: e.index, source_date: e.date, value_date: d, concept: cv.concept, cls: e.cls });
  }
  return out;
}
