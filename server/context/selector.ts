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
import { yieldIfLarge } from '../event-loop';
import { contextError, type HubError } from '../errors';
import { renderLedger } from './inline-chart';
import { costRankedRecords, greedy } from './record-costs';
import { analyzeQuestion, scoreRecord, type RecordRelevance } from './relevance';
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

function normalizedType(record: EvidenceRecord): string {
  return record.resourceType.toLowerCase().replace(/[^a-z0-9]/g, '');
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

function isKnowledgeReference(record: EvidenceRecord): boolean {
  return record.resourceType === 'KnowledgeReference';
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

function byRelevance(scores: Map<Entry, number>) {
  const recencyOf = new Map<Entry, number>();
  const rec = (e: Entry) => recencyOf.get(e) ?? recencyOf.set(e, recency(e.record)).get(e)!;
  return (a: Entry, b: Entry): number =>
    (scores.get(b) ?? 0) - (scores.get(a) ?? 0) ||
    rec(b) - rec(a) ||
    b.record.sourcePriority - a.record.sourcePriority ||
    compareIds(a.record.stableId, b.record.stableId);
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

/** Assigns every record its tier (§5.9 tiers 1–7) and orders the eligible non-mandatory ones. */
export function rankRecords(ledger: EvidenceLedger, question: string, recentCoreLimit = DEFAULT_RECENT_CORE_LIMIT): Ranking {
  const q = analyzeQuestion(question);
  const entries: Entry[] = ledger.records.map((record, i) => ({ record, index: i + 1, reason: ZERO_RELEVANCE }));
  const mandatory: Entry[] = [];
  const exact: Entry[] = [];
  const overlap: Entry[] = [];
  const qsRanked: Entry[] = [];
  const sliced: Entry[] = [];
  const rest: Entry[] = [];
  const overlaps = new Map<Entry, number>();
  const buckets: Record<string, Entry[]> = { mandatory, exact_match: exact, meaningful_overlap: overlap, querystore_ranked: qsRanked };
  for (const e of entries) {
    const score = isMandatory(e.record) ? null : scoreRecord(q, e.record);
    overlaps.set(e, score?.overlap ?? 0);
    e.reason = localTier(e.record, score);
    if (e.reason === ZERO_RELEVANCE) rest.push(e);
    else (buckets[e.reason] ?? sliced).push(e);
  }
  exact.sort(byRelevance(overlaps));
  overlap.sort(byRelevance(overlaps));
  qsRanked.sort((a, b) => (a.record.querystoreRank ?? 0) - (b.record.querystoreRank ?? 0) || compareIds(a.record.stableId, b.record.stableId));
  sliced.sort((a, b) => SLICE_ORDER.indexOf(a.record.sliceTier!) - SLICE_ORDER.indexOf(b.record.sliceTier!) || a.index - b.index);
  // The recent core stands in for a slice only when QueryStore gave none: slices are *the* selection.
  const core = ledger.records.some((r) => r.sliceTier) ? [] : recentCore(rest, recentCoreLimit);
  return { entries, mandatory, ranked: [...exact, ...overlap, ...qsRanked, ...sliced, ...core] };
}

function recentCore(rest: Entry[], limit: number): Entry[] {
  // Sort keys are computed once per record (decorate-sort): thousands of records are compared
  // O(n log n) times and the active-condition test runs regexes over the text.
  const keyed = rest
    .filter((e) => !isKnowledgeReference(e.record) && (e.record.clinicalDate ?? e.record.date))
    .map((e) => ({ e, active: isActiveCondition(e.record), recency: recency(e.record) }));
  keyed.sort(
    (a, b) =>
      Number(b.active) - Number(a.active) ||
      b.recency - a.recency ||
      b.e.record.sourcePriority - a.e.record.sourcePriority ||
      compareIds(a.e.record.stableId, b.e.record.stableId),
  );
  const core = keyed.slice(0, Math.max(0, limit));
  for (const k of core) k.e.reason = k.active ? 'active_condition' : 'recent_core';
  return core.map((k) => k.e);
}

// ---------------------------------------------------------------------------------------------
// Rendering

/**
 * One record line of a selected view. The date is always written: run-length date compression
 * would misdate a record whose run head was left out.
 */
export function renderRecordLine(record: EvidenceRecord, index: number): string {
  if (isKnowledgeReference(record)) return `[${index}] KnowledgeReference (source: ${record.source}): ${record.text}`;
  return `[${index}] ${record.date ? `(${record.date}) ` : ''}${record.text}`;
}

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
  const { entries, mandatory, ranked } = rankRecords(ledger, input.question, input.recentCoreLimit ?? DEFAULT_RECENT_CORE_LIMIT);
  await yieldIfLarge(ledger.records.length);
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
