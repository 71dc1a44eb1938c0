/**
 * Deterministic context selector (§5.9): which whole records of the complete ledger go into a
 * stage prompt so that the *exactly measured* prompt fits the model's input limit.
 *
 * Records are ranked into tiers (mandatory, exact match, meaningful overlap, QueryStore rank,
 * QueryStore slice tier, recent clinical core, zero relevance) and admitted with a bounded number
 * of exact measurements: the full chart, the eligible records, mandatory-only, then at most three
 * packing attempts driven by per-record costs from ONE batched tokenizer call. The limit is a
 * ceiling, never a target: zero-relevance records are never admitted to fill space.
 */
import { inSlices, LoopSlice, SLICE_ABOVE_CHARS, stepsInSlices, YIELD_ABOVE_RECORDS } from '../event-loop';
import { contextError, type HubError } from '../errors';
import { isKnowledgeReference, renderLedger, renderRecordLine } from './render';
import { costRankedRecords, greedy } from './record-costs';
import { analyzeQuestion, analyzeQuestionSteps, scoreRecord, type QuestionRelevance, type RecordRelevance } from './relevance';
import type { EvidenceLedger, EvidenceRecord, SliceTier } from './types';

export interface SelectInput {
  /** The complete ledger (canonical order = ledger order; original 1-based index = position + 1). */
  ledger: EvidenceLedger;
  question: string;
  /** Context window minus the reserved output. */
  inputLimit: number;
  /** Exact token count of the REAL stage prompt when `chartText` is the chart of the context message. */
  measure(chartText: string): Promise<number>;
  /** Exact per-record costs in ONE batched tokenizer call; texts are rendered record lines. */
  recordCosts(texts: string[]): Promise<number[]>;
  /** Size of the recent clinical core (default 32). */
  recentCoreLimit?: number;
}

export interface ContextView {
  mode: 'full' | 'selected';
  records: EvidenceRecord[];
  /** Original 1-based indices, canonical order. */
  recordIndices: number[];
  /** The chart of the context message. */
  chartText: string;
  included: Array<{ stableId: string; reason: string }>;
  excluded: Array<{ stableId: string; reason: string }>;
  inputTokens: number;
  inputLimit: number;
  measureCalls: number;
  recordCostCalls: number;
}

export const DEFAULT_RECENT_CORE_LIMIT = 32;
const MAX_PACKING_ATTEMPTS = 3;
const ZERO_RELEVANCE = 'zero_relevance';
/** Slice tiers in the order QueryStore lists them (clients.md §4): earlier tiers rank higher. */
const SLICE_ORDER: readonly SliceTier[] = ['mandatory', 'exact', 'recency_anchor', 'typed', 'similarity', 'panel'];

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
    this.sliced.sort((a, b) => SLICE_ORDER.indexOf(a.record.sliceTier!) - SLICE_ORDER.indexOf(b.record.sliceTier!) || a.index - b.index);
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

// ---------------------------------------------------------------------------------------------
// Rendering

function renderSelected(ledger: EvidenceLedger, chosen: readonly Entry[]): string {
  return ledger.preamble + chosen.map((e) => `${renderRecordLine(e.record, e.index)}\n`).join('');
}

function canonical(entries: Iterable<Entry>): Entry[] {
  return [...entries].sort((a, b) => a.index - b.index);
}

// ---------------------------------------------------------------------------------------------
// Admission

/** Measurement with reuse: identical chart text is never measured twice. */
class Meter {
  calls = 0;
  private readonly cache = new Map<string, number>();
  constructor(private readonly measureFn: (chartText: string) => Promise<number>) {}

  async measure(chartText: string): Promise<number> {
    const hit = this.cache.get(chartText);
    if (hit !== undefined) return hit;
    this.calls++;
    const tokens = await this.measureFn(chartText);
    this.cache.set(chartText, tokens);
    return tokens;
  }
}

function insufficient(message: string, mandatory: readonly Entry[], extra: Record<string, unknown> = {}): HubError {
  const mandatoryIds = mandatory.map((e) => e.record.stableId);
  return contextError('insufficient_context', 422, 'selector', message, { mandatoryIds, mandatory_ids: mandatoryIds, ...extra });
}

export async function selectContext(input: SelectInput): Promise<ContextView> {
  const { ledger, inputLimit } = input;
  const limit = input.recentCoreLimit ?? DEFAULT_RECENT_CORE_LIMIT;
  // A large ledger is ranked in slices (the same ranking), giving the loop back between them.
  const slice = ledger.records.length > YIELD_ABOVE_RECORDS || input.question.length > SLICE_ABOVE_CHARS ? new LoopSlice() : null;
  const { entries, mandatory, ranked } = slice ? await rankRecordsInSlices(ledger, input.question, limit, slice) : rankRecords(ledger, input.question, limit);
  await slice?.maybeYield();
  const meter = new Meter(input.measure);
  let recordCostCalls = 0;
  const view = (mode: ContextView['mode'], chosen: Entry[], chartText: string, inputTokens: number): ContextView =>
    buildView(entries, { mode, chosen, chartText, inputTokens, inputLimit, measureCalls: meter.calls, recordCostCalls });

  // Step 1: a non-positive limit leaves no room even for the question.
  if (inputLimit <= 0) throw insufficient(`No input budget is left for the prompt (input limit ${inputLimit}).`, mandatory, { input_limit: inputLimit });

  // Step 2: when every record is relevant, the whole chart goes in byte-for-byte if it fits.
  const eligible = entries.filter((e) => e.reason !== ZERO_RELEVANCE);
  if (eligible.length === entries.length) {
    const fullText = renderLedger(ledger);
    const fullTokens = await meter.measure(fullText);
    if (fullTokens <= inputLimit) return view('full', entries, fullText, fullTokens);
  }

  // Step 3: all eligible evidence, in canonical order, if it fits (never padded with the rest).
  const eligibleText = renderSelected(ledger, eligible);
  const eligibleTokens = await meter.measure(eligibleText);
  if (eligibleTokens <= inputLimit) return view('selected', eligible, eligibleText, eligibleTokens);

  // Step 4: mandatory evidence must fit on its own, or the hub abstains.
  const mandatoryText = renderSelected(ledger, mandatory);
  const mandatoryTokens = await meter.measure(mandatoryText);
  if (mandatoryTokens > inputLimit) {
    throw insufficient(
      `Mandatory evidence needs ${mandatoryTokens} prompt tokens, above the input limit of ${inputLimit}.`,
      mandatory,
      { input_tokens: mandatoryTokens, input_limit: inputLimit },
    );
  }

  // Step 5: exact per-record costs for the candidates that can fit, batched (record-costs.ts).
  // Exact tokens per byte of the non-mandatory records: the two exact counts differ only by them.
  const extraBytes = Buffer.byteLength(eligibleText, 'utf8') - Buffer.byteLength(mandatoryText, 'utf8');
  const tokensPerByte = extraBytes > 0 ? Math.max(0, eligibleTokens - mandatoryTokens) / extraBytes : 1;
  const costed = await costRankedRecords({
    ranked,
    available: inputLimit - mandatoryTokens,
    tokensPerByte,
    render: (e) => renderRecordLine(e.record, e.index),
    recordCosts: input.recordCosts,
  });
  recordCostCalls = costed.calls;
  const costs = costed.costs;

  // Steps 6–7: pack, verify exactly, shrink; mandatory-only when nothing fits.
  const packed = await pack({ ledger, ranked, mandatory, costs, meter, inputLimit, mandatoryTokens });
  if (packed) return view('selected', canonical([...mandatory, ...packed.chosen]), packed.chartText, packed.tokens);
  return view('selected', mandatory, mandatoryText, mandatoryTokens);
}

interface PackInput {
  ledger: EvidenceLedger;
  ranked: Entry[];
  mandatory: Entry[];
  costs: Map<Entry, number>;
  meter: Meter;
  inputLimit: number;
  mandatoryTokens: number;
}

/**
 * Greedy packing against per-record costs (§5.9 step 6). Costs of records tokenized apart can
 * differ from their cost inside the prompt, so every packing is verified with an exact measure;
 * on overflow the unit budget shrinks in proportion to the overshoot, or, when the top record alone
 * overflows (its cost was underestimated), that record is dropped so it cannot strand the rest.
 */
async function pack(p: PackInput): Promise<{ chosen: Entry[]; chartText: string; tokens: number } | null> {
  const available = p.inputLimit - p.mandatoryTokens;
  let unitBudget = available;
  for (let attempt = 0; attempt < MAX_PACKING_ATTEMPTS && unitBudget > 0; attempt++) {
    const { chosen, used } = greedy(p.ranked, p.costs, unitBudget);
    if (chosen.length === 0) return null;
    const chartText = renderSelected(p.ledger, canonical([...p.mandatory, ...chosen]));
    const tokens = await p.meter.measure(chartText);
    if (tokens <= p.inputLimit) return { chosen, chartText, tokens };
    const first = chosen[0];
    const firstAlone = await p.meter.measure(renderSelected(p.ledger, canonical([...p.mandatory, first])));
    if (firstAlone > p.inputLimit) {
      p.costs.set(first, Number.POSITIVE_INFINITY);
      continue;
    }
    const proportional = Math.floor(((unitBudget * available) / (tokens - p.mandatoryTokens)) * 0.95);
    unitBudget = Math.min(unitBudget - 1, used - 1, proportional);
  }
  return null;
}


interface ViewParts {
  mode: ContextView['mode'];
  chosen: Entry[];
  chartText: string;
  inputTokens: number;
  inputLimit: number;
  measureCalls: number;
  recordCostCalls: number;
}

function buildView(entries: readonly Entry[], v: ViewParts): ContextView {
  const kept = new Set(v.chosen);
  const chosen = canonical(v.chosen);
  const reasonOf = (e: Entry) => (v.mode === 'full' ? 'full_context' : e.reason);
  return {
    mode: v.mode,
    records: chosen.map((e) => e.record),
    recordIndices: chosen.map((e) => e.index),
    chartText: v.chartText,
    included: chosen.map((e) => ({ stableId: e.record.stableId, reason: reasonOf(e) })),
    excluded: entries
      .filter((e) => !kept.has(e))
      .map((e) => ({ stableId: e.record.stableId, reason: e.reason === ZERO_RELEVANCE ? ZERO_RELEVANCE : `token_budget_after_${e.reason}` })),
    inputTokens: v.inputTokens,
    inputLimit: v.inputLimit,
    measureCalls: v.measureCalls,
    recordCostCalls: v.recordCostCalls,
  };
}
