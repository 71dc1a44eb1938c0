/**
 * References (§8): cited ledger indices resolved against the complete ledger, merged across the
 * Answer and In-Depth, and the deterministic helpers built on them (citations, resolution issues,
 * change detection). Usage extraction lives in references-usage.ts.
 */
import { isDeepStrictEqual } from 'node:util';
import type { EvidenceLedger, EvidenceRecord } from '../context/types';
import type { ReferenceUsage } from './references-usage';

export { answerUsages, claimUsages, markerIndices, splitSentences } from './references-usage';
export type { ReferenceUsage, UsageLocation } from './references-usage';

export type GroundingStatus = 'checking' | 'verified' | 'unsupported' | 'mixed' | 'unchecked';
/** Facts-first verdict of one check (§7.5 Target, decision 9). */
export type Support = 'supported' | 'contradicted' | 'not_addressed' | 'unchecked';

export interface Reference {
  index: number;
  sourceId?: string;
  source?: string;
  resourceType?: string;
  resourceUuid?: string | null;
  date?: string | null;
  title?: string;
  sourceText?: string;
  provenance?: Record<string, string>;
  resolutionStatus: 'resolved' | 'unresolved';
  usage: ReferenceUsage[];
  groundingStatus: GroundingStatus;
  grounded: boolean | null;
  groundingChecks?: unknown[];
  groundingScope?: 'record' | 'source_set';
  groundingGroup?: number[];
  support?: string;
}

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

function checkField(check: unknown, key: string): unknown {
  return check && typeof check === 'object' ? (check as Record<string, unknown>)[key] : undefined;
}

/** A Map: a status such as `constructor` must not find Object.prototype's member. */
const STATUS_AS_SUPPORT: ReadonlyMap<string, Support> = new Map([['verified', 'supported'], ['unsupported', 'contradicted']]);

/**
 * Aggregate grounding of one reference over its checks. With facts-first `support` values this is
 * decision 16; with only [REF] YES/NO statuses it is §7.5 step 4. No checks ⇒ unchecked.
 * The reference-level `support` is the most severe value (contradicted > unchecked > not_addressed),
 * so `mixed` stays explainable by the precise value.
 */
export function groundingFromChecks(checks: unknown[]): { groundingStatus: GroundingStatus; grounded: boolean | null; support?: Support } {
  if (checks.length === 0) return { groundingStatus: 'unchecked', grounded: null };
  if (checks.some((c) => typeof checkField(c, 'support') === 'string')) {
    const supports = checks.map((c): Support => {
      const s = checkField(c, 'support');
      if (s === 'supported' || s === 'contradicted' || s === 'not_addressed') return s;
      return STATUS_AS_SUPPORT.get(String(checkField(c, 'status'))) ?? 'unchecked';
    });
    if (supports.every((s) => s === 'supported')) return { groundingStatus: 'verified', grounded: true, support: 'supported' };
    if (supports.includes('contradicted')) {
      return supports.includes('supported')
        ? { groundingStatus: 'mixed', grounded: null, support: 'contradicted' }
        : { groundingStatus: 'unsupported', grounded: false, support: 'contradicted' };
    }
    if (supports.includes('unchecked')) return { groundingStatus: 'unchecked', grounded: null, support: 'unchecked' };
    return { groundingStatus: 'mixed', grounded: null, support: 'not_addressed' };
  }
  const statuses = checks.map((c) => checkField(c, 'status'));
  if (statuses.some((s) => s !== 'verified' && s !== 'unsupported')) return { groundingStatus: 'unchecked', grounded: null };
  if (statuses.every((s) => s === 'unsupported')) return { groundingStatus: 'unsupported', grounded: false };
  if (statuses.every((s) => s === 'verified')) return { groundingStatus: 'verified', grounded: true };
  return { groundingStatus: 'mixed', grounded: null };
}

/** A copy that shares no mutable part (usages, checks list, group, provenance) with `ref`. */
export function cloneReference(ref: Reference): Reference {
  const out: Reference = { ...ref, usage: ref.usage.map((u) => ({ ...u })) };
  if (ref.groundingChecks) out.groundingChecks = [...ref.groundingChecks];
  if (ref.groundingGroup) out.groundingGroup = [...ref.groundingGroup];
  if (ref.provenance) out.provenance = { ...ref.provenance };
  return out;
}

function sameUsage(a: ReferenceUsage, b: ReferenceUsage): boolean {
  return a.location === b.location && a.text === b.text && a.path === b.path;
}

function mergeInto(target: Reference, other: Reference): void {
  const usage = [...target.usage];
  for (const u of other.usage) if (!usage.some((v) => sameUsage(u, v))) usage.push({ ...u });
  if (target.resolutionStatus === 'unresolved' && other.resolutionStatus === 'resolved') {
    // Cannot happen with one ledger; if it does, the resolved side carries the record.
    Object.assign(target, cloneReference(other));
  }
  target.usage = usage;
  if (target.resolutionStatus === 'unresolved') return; // unresolved references stay unchecked (§7.5)

  const checks = [...(target.groundingChecks ?? []), ...(other.groundingChecks ?? [])];
  if (checks.length > 0) target.groundingChecks = checks;
  if (target.groundingStatus === 'checking' || other.groundingStatus === 'checking') {
    // Some usage still awaits grounding: the merged reference is not settled either.
    target.groundingStatus = 'checking';
    target.grounded = null;
  } else if (checks.length > 0) {
    const aggregate = groundingFromChecks(checks);
    target.groundingStatus = aggregate.groundingStatus;
    target.grounded = aggregate.grounded;
    if (aggregate.support) target.support = aggregate.support;
  } else if (target.groundingStatus !== other.groundingStatus) {
    target.groundingStatus = 'unchecked';
    target.grounded = null;
  }

  if (target.groundingScope || other.groundingScope) {
    // The scope widens to the union group (§7.5).
    const group = [...new Set([...(target.groundingGroup ?? []), ...(other.groundingGroup ?? [])])].sort((x, y) => x - y);
    if (target.groundingScope === 'source_set' || other.groundingScope === 'source_set' || group.length > 1) {
      target.groundingScope = 'source_set';
      target.groundingGroup = group.length > 0 ? group : [target.index];
    } else {
      target.groundingScope = 'record';
      delete target.groundingGroup;
    }
  }
}

/**
 * Merges Answer and In-Depth references citing the same record (same ledger index): usages and
 * checks concatenated, grounding re-aggregated. Order kept: `a` (the Answer) first, then `b`'s new ones.
 * Inputs are not mutated.
 */
export function mergeReferences(a: readonly Reference[], b: readonly Reference[]): Reference[] {
  const out: Reference[] = [];
  const byIndex = new Map<number, Reference>();
  for (const ref of [...a, ...b]) {
    const existing = byIndex.get(ref.index);
    if (existing) {
      mergeInto(existing, ref);
      continue;
    }
    const copy = cloneReference(ref);
    byIndex.set(ref.index, copy);
    out.push(copy);
  }
  return out;
}

/** `citations` of an envelope: indices of references used by the Answer prose or a table, in reference order (§3.6). */
export function citationsFromReferences(refs: Reference[]): number[] {
  const out: number[] = [];
  for (const ref of refs) {
    if (out.includes(ref.index)) continue;
    if (ref.usage.some((u) => u.location === 'answer' || u.location === 'block')) out.push(ref.index);
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
