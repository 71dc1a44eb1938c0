/**
 * References (§8): cited ledger indices resolved against the complete ledger, and the deterministic
 * helpers that need it (resolution issues, change detection). The Reference model and the ledger-free
 * operations (merge, citations) live in answer/references.ts; usage extraction in references-usage.ts.
 */
import { isDeepStrictEqual } from 'node:util';
import type { EvidenceLedger, EvidenceRecord } from '../context';
import type { Reference, ReferenceUsage } from '../answer';

export { answerUsages, claimUsages, splitSentences } from './references-usage';

const TITLE_MAX = 120;
const PROVENANCE_KEYS = ['authority', 'url', 'version', 'license'] as const;
/**
 * Querystore's serializer appends this to non-clinical dates; it is chart layout, not record content.
 * `(?<!\s)`: tried only where a blank run starts, not from each of its positions (quadratic); same match.
 */
const DATE_KIND_MARKER = /(?<!\s)\s*\[(?:administrative|unknown)\]\s*$/;

/** Record text as a reader should see it; what grounding and the front end quote. */
function sourceTextOf(record: EvidenceRecord): string {
  if (record.source === 'inline' && record.resourceType === 'ChartRecord' && record.date) {
    // The inline ledger stores the body without its `(date)` prefix; the date is part of what
    // the clinician wrote and of what the claim is checked against (§3.7).
    return `(${record.date}) ${record.text}`;
  }
  if (record.source === 'querystore') return record.text.replace(DATE_KIND_MARKER, '');
  return record.text;
}

function titleOf(record: EvidenceRecord, sourceText: string): string {
  const title = record.metadata?.title;
  if (typeof title === 'string' && title.trim() !== '') return title.trim();
  return (sourceText.split(/\r?\n/)[0] ?? '').trim().slice(0, TITLE_MAX).trimEnd();
}

function provenanceOf(record: EvidenceRecord): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of PROVENANCE_KEYS) {
    const value = record.metadata?.[key];
    if (typeof value === 'string' && value.trim() !== '') out[key] = value.trim();
    else if (typeof value === 'number' && Number.isFinite(value)) out[key] = String(value);
  }
  return out;
}

/**
 * Resolves cited indices against the COMPLETE ledger (never a reduced prompt view: temporal facts
 * may cite records the prompt omitted). Resolved references start `checking` (grounding pending)
 * or `unchecked` (review drafts, grounding off) — never verified: only grounding may say that.
 */
export function resolveReferences(
  usages: Map<number, ReferenceUsage[]>,
  ledger: EvidenceLedger,
  grounding: 'checking' | 'unchecked',
): Reference[] {
  const out: Reference[] = [];
  for (const [index, usage] of usages) {
    const copied = usage.map((u) => ({ ...u }));
    const inLedger = Number.isInteger(index) && index >= 1 && index <= ledger.records.length;
    if (!inLedger) {
      out.push({ index, resolutionStatus: 'unresolved', groundingStatus: 'unchecked', grounded: null, usage: copied });
      continue;
    }
    const record = ledger.records[index - 1];
    const sourceText = sourceTextOf(record);
    out.push({
      index,
      sourceId: record.stableId,
      source: record.source,
      resourceType: record.resourceType,
      resourceUuid: record.resourceUuid,
      date: record.date,
      title: titleOf(record, sourceText),
      sourceText,
      provenance: provenanceOf(record),
      resolutionStatus: 'resolved',
      usage: copied,
      groundingStatus: grounding,
      grounded: null,
    });
  }
  return out;
}


/** One blocking `citation_resolution` issue per unresolved index (§7.4). */
export function resolutionIssues(refs: readonly Reference[]): Array<Record<string, unknown>> {
  const seen = new Set<number>();
  const issues: Array<Record<string, unknown>> = [];
  for (const ref of refs) {
    if (ref.resolutionStatus !== 'unresolved' || seen.has(ref.index)) continue;
    seen.add(ref.index);
    issues.push({
      id: 'citation_resolution',
      status: 'fail',
      severity: 'block',
      reason: `Citation [${ref.index}] cites a source outside the current evidence ledger.`,
      source_indices: [ref.index],
    });
  }
  return issues;
}

function sameIndexSet(a: number[], b: number[]): boolean {
  const x = new Set(a ?? []);
  const y = new Set(b ?? []);
  return x.size === y.size && [...x].every((i) => y.has(i));
}

/** Plain-JSON view, so an absent key and an `undefined` one compare equal (wire data has neither). */
function jsonShape(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? []));
}

/**
 * True when a check changed the draft: its text, the SET of cited indices, or its blocks.
 * Re-ordering citations alone is not a change (§13.1 #4: the spurious `edited` we must not repeat).
 */
export function draftChanged(
  before: { answer: string; citations: number[]; blocks: unknown[] },
  after: { answer: string; citations: number[]; blocks: unknown[] },
): boolean {
  if (before.answer !== after.answer) return true;
  if (!sameIndexSet(before.citations, after.citations)) return true;
  return !isDeepStrictEqual(jsonShape(before.blocks), jsonShape(after.blocks));
}
