/**
 * Exact-budget context for the Answer (§5.8, §5.9): fit the conversation history, then select whole
 * records against the exact token count of the real Answer request. Both measure the very request
 * the answer stage dispatches, so its count is a cache hit at dispatch time.
 */
import { renderTemporalFacts } from '../checks/temporal';
import { contextSummary, fitHistory, stripPriorCitations, buildContextMessage, renderLedger, renderRecordLine, isMandatory, selectContext, type EvidenceLedger } from '../context';
import { prepareBody, createTokenCounter, type SharedBlock } from '../llm';
import { useTokenCounter } from './budget';
import { LoopSlice } from '../event-loop';
import { answerRequest } from './stages/answer';
import { promptLayout } from './fit';
import { gatheredNotes } from './gather/gathered';
import { adoptContextView, type ContextSlice } from './slices/context';
import { recordStep } from './steps';
import type { EngineDeps, TurnState } from './types';

function mandatoryChart(ledger: EvidenceLedger): string {
  const lines = ledger.records.map((r, i) => (isMandatory(r) ? renderRecordLine(r, i + 1) : null)).filter((l): l is string => l !== null);
  return ledger.preamble + lines.map((l) => `${l}\n`).join('');
}

/**
 * The temporal-facts block that opens the context (empty without facts). Rendered here, not kept on the
 * turn: once inside the context block, a second copy would only double each open turn's memory.
 */
function temporalFactsText(turn: TurnState): string {
  return turn.context.facts ? renderTemporalFacts(turn.context.facts, turn.profile.policies.temporalRender) : '';
}

/** Plain context for profiles without an exact budget: the whole chart, prior citations stripped. */
export function wholeChartContext(turn: TurnState, ledger: EvidenceLedger): void {
  const temporalFacts = temporalFactsText(turn);
  adoptContextView(turn, {
    conversation: stripPriorCitations(turn.context.conversation).messages,
    contextMessage: buildContextMessage({ temporalFacts, chart: renderLedger(ledger) }),
    summary: { ...contextSummary(null, ledger, { exactTokens: false }) },
  });
}

/**
 * `role` names the trace step: `context_reselection` when team gather re-selects after adding its
 * gathered text (the Answer request measured here carries it). A re-selection keeps the turn's
 * counter, so its cached counts and statistics carry over.
 */
export async function selectAnswerContext(turn: TurnState, deps: EngineDeps, ledger: EvidenceLedger, role: 'context_selection' | 'context_reselection' = 'context_selection'): Promise<void> {
  const budget = turn.profile.context;
  const counter = useTokenCounter(turn, () => createTokenCounter({ router: deps.router, local: deps.localTokenizer ?? null }, { signal: turn.signal }));
  const model = turn.profile.models.answer!;
  const inputLimit = budget.window - budget.reservedOutputTokens;
  const temporalFacts = temporalFactsText(turn);
  // One block per chart text: the chosen chart's block (its JSON bytes and digest) is the one dispatched.
  const blocks = new Map<string, SharedBlock>();
  const blockFor = (chart: string): SharedBlock => {
    let block = blocks.get(chart);
    if (!block) blocks.set(chart, (block = buildContextMessage({ temporalFacts, chart })));
    return block;
  };
  // The layout the Answer is dispatched with: what is measured here is the very request it sends.
  const layout = await promptLayout(turn, deps, model);
  const measureWith = async (chart: string, history: ContextSlice['conversation']) => {
    const request = answerRequest(turn, deps, blockFor(chart), history, layout);
    // A large block's (or long question's) JSON bytes and digest, what counting and dispatch read, in slices first.
    await prepareBody(request, new LoopSlice());
    return counter.countChat(request);
  };

  const t0 = performance.now();
  const mandatory = mandatoryChart(ledger);
  const fit = await fitHistory({
    conversation: turn.context.conversation,
    inputLimit,
    measure: (history) => measureWith(mandatory, history),
    mandatoryIds: ledger.records.filter(isMandatory).map((r) => r.stableId),
  });
  adoptContextView(turn, { conversation: fit.history });
  const t1 = performance.now();
  const view = await selectContext({
    ledger,
    question: turn.context.question,
    inputLimit,
    measure: (chart) => measureWith(chart, fit.history),
    recordCosts: (texts) => counter.countRecords(model, texts),
  });
  const t2 = performance.now();
  adoptContextView(turn, {
    contextMessage: blockFor(view.chartText),
    summary: { ...contextSummary(view, ledger, { exactTokens: true, history: fit, derivedContextChars: gatheredNotes(turn).length }) },
  });
  recordStep(turn, {
    role,
    stage: 'answer',
    mode: view.mode,
    input_tokens: view.inputTokens,
    input_limit: view.inputLimit,
    // The record lists are the trace's `context` field already: half of a long chart's trace line twice over.
    included_count: view.included.length,
    excluded_count: view.excluded.length,
    measure_calls: view.measureCalls,
    record_cost_calls: view.recordCostCalls,
    history_fit_ms: t1 - t0,
    selection_ms: t2 - t1,
  });
}
