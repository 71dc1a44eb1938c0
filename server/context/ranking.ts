/**
 * Ranking for the context selector (§5.9): each ledger record's tier (mandatory, exact match, meaningful
 * overlap, QueryStore rank, QueryStore slice tier, recent clinical core, zero relevance) and the order
 * records are offered for admission. A large ledger or a long question is ranked a run at a time.
 */
import { inSlices, LoopSlice, stepsInSlices } from '../event-loop';
import { isKnowledgeReference } from './render';
import { analyzeQuestion, analyzeQuestionSteps, scoreRecord, type QuestionRelevance, type RecordRelevance } from './relevance';
import { SLICE_TIERS, type EvidenceLedger, type EvidenceRecord } from './types';

export const DEFAULT_RECENT_CORE_LIMIT = 32;
export const ZERO_RELEVANCE = 'zero_relevance';

/** One ledger record with its position and the tier that admitted (or excluded) it. */
export interface Entry {
  record: EvidenceRecord;
  /** Original 1-based index. */
  index: number;
  reason: string;
}

// ---------------------------------------------------------------------------------------------
// Tiers

/** Normalized resource types seen lately: a ledger has a handful of types, tested for each of its records. */
const NORMALIZED_TYPES = new Map<string, string>();
const NORMALIZED_TYPES_KEPT = 64;

function normalizedType(record: EvidenceRecord): string {
  const type = record.resourceType;
  let normalized = NORMALIZED_TYPES.get(type);
  if (normalized === undefined) {
    normalized = type.toLowerCase().replace(/[^a-z0-9]/g, '');
    if (NORMALIZED_TYPES.size >= NORMALIZED_TYPES_KEPT) NORMALIZED_TYPES.clear();
    NORMALIZED_TYPES.set(type, normalized);
  }
  return normalized;
}

/**
 * Safety evidence that is never budgeted away: allergies (by flag, type or body), QueryStore's
 * `mandatory` tier, and injected drug references (defect §13.1 #2).
 */
export function isMandatory(record: EvidenceRecord): boolean {
  if (record.mandatory || record.metadata.mandatory_context === true || record.sliceTier === 'mandatory') return true;
  const type = normalizedType(record);
  if (type === 'allergyintolerance' || type === 'allergy' || type === 'drugreference') return true;
  return /^allergy:/i.test(record.text.trim());
}

/** `clinicalDate ?? date` as a YYYYMMDD integer; 0 when undated (sorts last). */
export function recency(record: EvidenceRecord): number {
  const d = record.clinicalDate ?? record.date ?? '';
  // Sort comparators call this O(n log n) times: read the digits without a regex or allocation.
  if (d.length < 10 || d[4] !== '-' || d[7] !== '-') return 0;
  const n = Number(d.slice(0, 4)) * 10000 + Number(d.slice(5, 7)) * 100 + Number(d.slice(8, 10));
  return Number.isFinite(n) ? n : 0;
}

export function isActiveCondition(record: EvidenceRecord): boolean {
  const isCondition = normalizedType(record) === 'condition' || /^condition:/i.test(record.text.trim());
  if (!isCondition) return false;
  return /status:\s*active\b/i.test(record.text) || record.metadata.clinical_status === 'active';
}

/** Code-unit comparison: locale-independent, so ordering is identical on every host. */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Tiers 1–5 of one record; `zero_relevance` until the recent core claims it. */
function localTier(record: EvidenceRecord, score: RecordRelevance | null): string {
  if (score === null) return 'mandatory';
  if (score.exact) return 'exact_match';
  if (score.overlap > 0) return 'meaningful_overlap';
  if (record.querystoreRank != null) return 'querystore_ranked';
  if (record.sliceTier) return `slice_${record.sliceTier}`;
  return ZERO_RELEVANCE;
}

export interface Ranking {
  /** Every record with its reason, canonical order. */
  entries: Entry[];
  mandatory: Entry[];
  /** Eligible non-mandatory records, best first. */
  ranked: Entry[];
}

/** A recent-core candidate with its sort keys, computed once per record (decorate-sort). */
interface CoreCandidate {
  e: Entry;
  active: boolean;
  recency: number;
}

function compareCore(a: CoreCandidate, b: CoreCandidate): number {
  return (
    Number(b.active) - Number(a.active) ||
    b.recency - a.recency ||
    b.e.record.sourcePriority - a.e.record.sourcePriority ||
    compareIds(a.e.record.stableId, b.e.record.stableId)
  );
}

/**
 * The first `limit` of `items` in `compare` order, exactly `[...items].sort(compare).slice(0, limit)`
 * (ties keep their input order, as the stable sort does), without sorting the thousands of records that
 * cannot make it: each one is compared with the current last place, and only a better one is inserted.
 */
export function firstInOrder<T>(items: readonly T[], limit: number, compare: (a: T, b: T) => number): T[] {
  const best: T[] = [];
  if (limit <= 0) return best;
  for (const x of items) {
    if (best.length === limit && compare(x, best[limit - 1]) >= 0) continue;
    // After every kept item that is not worse than x: ties stay in input order.
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(best[mid], x) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, x);
    if (best.length > limit) best.pop();
  }
  return best;
}

/**
 * Ranking in two parts: `score` assigns tiers to a run of records (the per-record work, which a large
 * ledger does in slices), `finish` orders the tiers. `rankRecords` and `rankRecordsInSlices` drive it.
 */
class Ranker {
  readonly entries: Entry[];
  private readonly q: QuestionRelevance;
  private readonly mandatory: Entry[] = [];
  private readonly exact: Entry[] = [];
  private readonly overlap: Entry[] = [];
  private readonly qsRanked: Entry[] = [];
  private readonly sliced: Entry[] = [];
  /** Zero-relevance records the recent core may claim (dated, not knowledge references), with their keys. */
  private readonly coreCandidates: CoreCandidate[] = [];
  private anySlice = false;
  /** Overlap with the question and recency (NaN until needed) of each record, by position. */
  private readonly overlaps: number[];
  private readonly recencies: number[];

  constructor(ledger: EvidenceLedger, q: QuestionRelevance) {
    this.q = q;
    this.entries = ledger.records.map((record, i) => ({ record, index: i + 1, reason: ZERO_RELEVANCE }));
    this.overlaps = new Array<number>(this.entries.length).fill(0);
    this.recencies = new Array<number>(this.entries.length).fill(Number.NaN);
  }

  score(from: number, to: number): void {
    for (let i = from; i < to; i++) {
      const e = this.entries[i];
      const record = e.record;
      if (record.sliceTier) this.anySlice = true;
      const score = isMandatory(record) ? null : scoreRecord(this.q, record);
      this.overlaps[i] = score?.overlap ?? 0;
      e.reason = localTier(record, score);
      if (e.reason === ZERO_RELEVANCE) {
        // The recent core stands in for a slice only when QueryStore gave none: no keys once one is seen.
        if (!this.anySlice && !isKnowledgeReference(record) && (record.clinicalDate ?? record.date)) {
          this.coreCandidates.push({ e, active: isActiveCondition(record), recency: recency(record) });
        }
      } else if (e.reason === 'mandatory') this.mandatory.push(e);
      else if (e.reason === 'exact_match') this.exact.push(e);
      else if (e.reason === 'meaningful_overlap') this.overlap.push(e);
      else if (e.reason === 'querystore_ranked') this.qsRanked.push(e);
      else this.sliced.push(e);
    }
  }

  finish(recentCoreLimit: number): Ranking {
    const byRelevance = (a: Entry, b: Entry): number =>
      this.overlaps[b.index - 1] - this.overlaps[a.index - 1] ||
      this.recencyAt(b) - this.recencyAt(a) ||
      b.record.sourcePriority - a.record.sourcePriority ||
      compareIds(a.record.stableId, b.record.stableId);
    this.exact.sort(byRelevance);
    this.overlap.sort(byRelevance);
    this.qsRanked.sort((a, b) => (a.record.querystoreRank ?? 0) - (b.record.querystoreRank ?? 0) || compareIds(a.record.stableId, b.record.stableId));
    this.sliced.sort((a, b) => SLICE_TIERS.indexOf(a.record.sliceTier!) - SLICE_TIERS.indexOf(b.record.sliceTier!) || a.index - b.index);
    const core = this.anySlice ? [] : recentCore(this.coreCandidates, recentCoreLimit);
    return { entries: this.entries, mandatory: this.mandatory, ranked: [...this.exact, ...this.overlap, ...this.qsRanked, ...this.sliced, ...core] };
  }

  private recencyAt(e: Entry): number {
    const i = e.index - 1;
    if (Number.isNaN(this.recencies[i])) this.recencies[i] = recency(e.record);
    return this.recencies[i];
  }
}

/** Assigns every record its tier (§5.9 tiers 1–7) and orders the eligible non-mandatory ones. */
export function rankRecords(ledger: EvidenceLedger, question: string, recentCoreLimit = DEFAULT_RECENT_CORE_LIMIT): Ranking {
  const ranker = new Ranker(ledger, analyzeQuestion(question));
  ranker.score(0, ranker.entries.length);
  return ranker.finish(recentCoreLimit);
}

/** Records scored per run of the sliced ranking. */
const RECORDS_PER_RUN = 250;

/** `rankRecords` for a large ledger or a long question: the same ranking, computed a run at a time between yields. */
export async function rankRecordsInSlices(ledger: EvidenceLedger, question: string, recentCoreLimit = DEFAULT_RECENT_CORE_LIMIT, slice: LoopSlice = new LoopSlice(), perRun = RECORDS_PER_RUN): Promise<Ranking> {
  const ranker = new Ranker(ledger, await stepsInSlices(analyzeQuestionSteps(question), slice));
  await slice.maybeYield();
  await inSlices(ranker.entries.length, perRun, (from, to) => ranker.score(from, to), slice);
  await slice.maybeYield();
  return ranker.finish(recentCoreLimit);
}

function recentCore(candidates: readonly CoreCandidate[], limit: number): Entry[] {
  const core = firstInOrder(candidates, limit, compareCore);
  for (const k of core) k.e.reason = k.active ? 'active_condition' : 'recent_core';
  return core.map((k) => k.e);
}
