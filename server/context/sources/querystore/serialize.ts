/**
 * The QueryStore serializer (hub-contract §5.4 "Chart serializer", clients.md §3): QueryStore records →
 * the hub's evidence records, and the chart text a QueryStore ledger renders to.
 *
 * One evidence record per QueryStore record, in QueryStore order (newest first). A record's `text` is
 * what references and grounding read: the QueryStore text on one line, whole-number `.0` trimmed, plus
 * ` (part of: <group>)` for obs-group members — never the date-kind marker. The chart line
 * `[N] (<date>) <text>[ [administrative]|[unknown]]` is rendered from the record's own fields by the
 * selector's `renderRecordLine`, so the full chart (`originalText`) and any selected view show the
 * same line for the same record.
 */
import { renderRecordLine } from '../../render';
import { isMandatory } from '../../ranking';
import type { EvidenceLedger, EvidenceRecord } from '../../types';
import type { QuerystoreRecord } from './types';

export const QUERYSTORE_SOURCE = 'querystore';
export const QUERYSTORE_PRIORITY = 50;

/** `querystore:<resourceType>:<resourceUuid>` (§5.4). */
export function stableIdOf(resourceType: string, resourceUuid: string): string {
  return `querystore:${resourceType}:${resourceUuid}`;
}

// ---------------------------------------------------------------------------------------------
// Text normalisation (hand scans: no regex re-reads a run of blanks or digits)

/** JavaScript line terminators (`.` does not cross them) and the other vertical blanks. */
const LINE_BREAKS = new Set(['\n', '\r', '\u2028', '\u2029', '\u000b', '\u000c', '\u0085']);
const HORIZONTAL_BLANKS = new Set([' ', '\t']);

/**
 * One line per record: every run of line breaks, with the blanks around it, becomes one space, and the
 * ends are trimmed. A break inside a record would start a line the chart parsers do not read as that
 * record (its date-kind marker would then sit on a continuation line).
 */
export function singleLine(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (!LINE_BREAKS.has(c)) {
      out += c;
      i++;
      continue;
    }
    let end = out.length;
    while (end > 0 && HORIZONTAL_BLANKS.has(out[end - 1])) end--;
    out = out.slice(0, end);
    while (i < text.length && (LINE_BREAKS.has(text[i]) || HORIZONTAL_BLANKS.has(text[i]))) i++;
    out += ' ';
  }
  return out.trim();
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const WORD_CHAR = /^[\p{L}\p{N}_]$/u;
const isWordChar = (c: string | undefined): boolean => c !== undefined && WORD_CHAR.test(c);
/** Glued before a number, these make it part of a code (`CIEL:12.0`, `v^2.0`, `#3.0`, `x.1.0`). */
const CODE_BEFORE = new Set(['.', ':', '^', '#']);
/** Glued after a number, these make it part of a code or a range (`12.0:`, `1.0-2`, `2.0^`). */
const CODE_AFTER = new Set([':', '-', '^', '#']);

/** The number starting at `start` stands alone on its left: not glued to a word, a code or a signed code. */
function freeBefore(text: string, start: number): boolean {
  let p = text[start - 1];
  if (p === '-' || p === '+') {
    // A sign counts only where a number may start (`-2.0`, `(-2.0`), not in `ICD-11.0` / `A+1.0`.
    p = text[start - 2];
    return p === undefined || (!isWordChar(p) && !CODE_BEFORE.has(p) && p !== '-' && p !== '+');
  }
  return p === undefined || (!isWordChar(p) && !CODE_BEFORE.has(p));
}

/** The number ending before `end` stands alone on its right (a sentence's full stop is fine: `988.0.`). */
function freeAfter(text: string, end: number): boolean {
  const n = text[end];
  if (n === undefined) return true;
  if (n === '.') return !isWordChar(text[end + 1]);
  return !isWordChar(n) && !CODE_AFTER.has(n);
}

/**
 * Trims the `.0` of whole numbers (`988.0` → `988`, `41.0 kg` → `41 kg`, `-2.0` → `-2`,
 * `120.0/80.0` → `120/80`) as QueryStore's doubles print them. A number that is part of a code or a
 * version is left alone: dotted runs (`1.0.0`), numbers glued to a letter or digit (`E11.0`, `41.0kg`,
 * `1.0a`), to a code separator on the left (`CIEL:12.0`, `ICD-11.0`) or on the right (`1.0-2.0`,
 * `12.0:`). Only a single `0` decimal is a whole-number rendering: `1.00` and `1.05` are kept.
 */
export function trimWholeNumbers(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (!isDigit(text[i]) || isDigit(text[i - 1]) || text[i - 1] === '.') {
      out += text[i];
      i++;
      continue;
    }
    const start = i;
    let dots = 0;
    let lastDot = -1;
    while (isDigit(text[i])) i++;
    while (text[i] === '.' && isDigit(text[i + 1])) {
      dots++;
      lastDot = i;
      i++;
      while (isDigit(text[i])) i++;
    }
    const run = text.slice(start, i);
    const whole = dots === 1 && i - lastDot === 2 && text[lastDot + 1] === '0';
    out += whole && freeBefore(text, start) && freeAfter(text, i) ? text.slice(start, lastDot) : run;
  }
  return out;
}

function nonBlankString(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

/**
 * ` (part of: <obs_group_concept_name>)` for an obs-group member (`metadata.obs_group_uuid` set). A
 * member whose group has no name gets no suffix: `(part of: )` would tell the reader nothing.
 */
export function groupSuffix(metadata: Record<string, unknown>): string {
  if (metadata.obs_group_uuid === null || metadata.obs_group_uuid === undefined || metadata.obs_group_uuid === '') return '';
  const name = nonBlankString(metadata.obs_group_concept_name);
  return name === null ? '' : ` (part of: ${singleLine(name)})`;
}

/** The record's evidence text: one line, whole numbers trimmed, group suffix (once); no marker. */
export function recordText(record: QuerystoreRecord): string {
  const body = trimWholeNumbers(singleLine(record.text ?? ''));
  const group = groupSuffix(record.metadata ?? {});
  return group !== '' && body.endsWith(group) ? body : `${body}${group}`;
}

// ---------------------------------------------------------------------------------------------
// Records and the ledger

/** One QueryStore record as evidence. `raw` and `metadata` are copies: the cached ledger stays untouched. */
export function toEvidenceRecord(record: QuerystoreRecord): EvidenceRecord {
  const metadata: Record<string, unknown> = { ...(record.metadata ?? {}) };
  const raw: Record<string, unknown> = { ...record, metadata: { ...(record.metadata ?? {}) } };
  const evidence: EvidenceRecord = {
    stableId: stableIdOf(record.resourceType, record.resourceUuid),
    source: QUERYSTORE_SOURCE,
    sourcePriority: QUERYSTORE_PRIORITY,
    resourceType: record.resourceType,
    resourceUuid: record.resourceUuid,
    date: record.date || null,
    text: recordText(record),
    mandatory: false,
    clinicalDate: record.clinicalDate || null,
    dateKind: record.dateKind ?? null,
    querystoreRank: null,
    sliceTier: null,
    metadata,
    raw,
  };
  // The selector's safety rules (allergy types and bodies, `metadata.mandatory_context`), not a copy of them.
  // A slice tier `mandatory` is read by `isMandatory` itself, so annotation never needs to touch this flag.
  evidence.mandatory = isMandatory(evidence);
  return evidence;
}

/** One evidence record per QueryStore record, in QueryStore order. */
export function toEvidenceRecords(records: readonly QuerystoreRecord[]): EvidenceRecord[] {
  return records.map(toEvidenceRecord);
}

/**
 * The chart text of records in ledger order: `preamble + "[i] …\n"` for i = 1..n, each line by
 * `renderRecordLine` — byte-identical to the selector's rendering of a selected subset, line for line.
 */
export function serializeChart(records: readonly EvidenceRecord[], preamble = ''): string {
  let out = preamble;
  for (let i = 0; i < records.length; i++) out += `${renderRecordLine(records[i], i + 1)}\n`;
  return out;
}

/**
 * A QueryStore ledger. It carries the serialized chart as `originalText`: `renderLedger` returns that
 * text, which is the same as rendering the records one by one (its own fallback would drop the
 * clinical date and the marker). Slice tiers and ranks do not change a line, so an annotated ledger
 * keeps the same `originalText` (`annotateLedger` in resolve.ts).
 */
export function toLedger(records: readonly QuerystoreRecord[]): EvidenceLedger {
  const evidence = toEvidenceRecords(records);
  return { records: evidence, originalText: serializeChart(evidence), preamble: '', sources: [QUERYSTORE_SOURCE] };
}
