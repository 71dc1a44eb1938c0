/**
 * Deterministic context selector (§5.9): which whole records of the complete ledger go into a
 * stage prompt so that the *exactly measured* prompt fits the model's input limit.
 *
 * Records are ranked into tiers (ranking.ts) and admitted with a bounded number
 * of exact measurements: the full chart, the eligible records, mandatory-only, then at most three
 * packing attempts driven by per-record costs from ONE batched tokenizer call. The limit is a
 * ceiling, never a target: zero-relevance records are never admitted to fill space.
 */
import { LoopSlice, SLICE_ABOVE_CHARS, YIELD_ABOVE_RECORDS } from '../event-loop';
import { contextError, type HubError } from '../errors';
import { DEFAULT_RECENT_CORE_LIMIT, rankRecords, rankRecordsInSlices, ZERO_RELEVANCE, type Entry } from './ranking';
import { renderLedger, renderRecordLine } from './render';
import { costRankedRecords, greedy } from './record-costs';
import type { EvidenceLedger, EvidenceRecord } from './types';

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

const MAX_PACKING_ATTEMPTS = 3;

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
  return contextError('insufficient_context', 'selector', message, { mandatoryIds, mandatory_ids: mandatoryIds, ...extra });
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
