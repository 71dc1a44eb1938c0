/**
 * References (§8) as envelopes carry them, and what is done with them without a ledger: grounding
 * aggregated over checks, copies, the merge of Answer and In-Depth references, `citations`.
 * Resolution against the ledger stays in engine/references.ts.
 */

export type UsageLocation = 'answer' | 'block' | 'indepth' | 'answer_review_draft' | 'indepth_review_draft';

export interface ReferenceUsage {
  location: UsageLocation;
  text: string;
  /** Only for table cells: `blocks[i].rows[j].cells.<key>`. */
  path?: string;
}

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
export function citationsFromReferences(refs: readonly Reference[]): number[] {
  const out: number[] = [];
  for (const ref of refs) {
    if (out.includes(ref.index)) continue;
    if (ref.usage.some((u) => u.location === 'answer' || u.location === 'block')) out.push(ref.index);
  }
  return out;
}
