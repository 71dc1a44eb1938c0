/**
 * Exact-budget context for the Answer (§5.8, §5.9): fit the conversation history, then select whole
 * records against the exact token count of the real Answer request. Both measure the very request
 * the answer stage dispatches, so its count is a cache hit at dispatch time.
 */
import { contextSummary } from '../context/context-view';
import { fitHistory, stripPriorCitations } from '../context/history';
import { buildContextMessage } from '../context/layout';
import { renderLedger } from '../context/inline-chart';
import { isMandatory, renderRecordLine, selectContext } from '../context/selector';
import type { EvidenceLedger } from '../context/types';
import { createTokenCounter } from '../llm/tokens';
import { answerRequest } from './stages/answer';
import type { EngineDeps, TurnState } from './types';

function mandatoryChart(ledger: EvidenceLedger): string {
  const lines = ledger.records.map((r, i) => (isMandatory(r) ? renderRecordLine(r, i + 1) : null)).filter((l): l is string => l !== null);
  return ledger.preamble + lines.join('');
}

/** Plain context for profiles without an exact budget: the whole chart, prior citations stripped. */
export function wholeChartContext(turn: TurnState, ledger: EvidenceLedger): void {
  turn.conversation = stripPriorCitations(turn.conversation).messages;
  turn.contextMessage = buildContextMessage({ temporalFacts: turn.temporalFactsText, chart: renderLedger(ledger) });
  turn.context = { ...contextSummary(null, ledger, { exactTokens: false }) };
}

export async function selectAnswerContext(turn: TurnState, deps: EngineDeps, ledger: EvidenceLedger): Promise<void> {
  const budget = turn.profile.context;
  const counter = createTokenCounter({ router: deps.router, local: deps.localTokenizer ?? null }, { signal: turn.signal });
  turn.tokens = counter;
  const model = turn.profile.models.answer!;
  const inputLimit = budget.window - budget.reservedOutputTokens;
  const measureWith = (chart: string, history: TurnState['conversation']) =>
    counter.countChat(answerRequest(turn, deps, buildContextMessage({ temporalFacts: turn.temporalFactsText, chart }), history));

  const t0 = performance.now();
  const mandatory = mandatoryChart(ledger);
  const fit = await fitHistory({
    conversation: turn.conversation,
    inputLimit,
    measure: (history) => measureWith(mandatory, history),
    mandatoryIds: ledger.records.filter(isMandatory).map((r) => r.stableId),
  });
  turn.conversation = fit.history;
  const t1 = performance.now();
  const view = await selectContext({
    ledger,
    question: turn.question,
    inputLimit,
    measure: (chart) => measureWith(chart, fit.history),
    recordCosts: (texts) => counter.countRecords(model, texts),
  });
  const t2 = performance.now();
  turn.contextMessage = buildContextMessage({ temporalFacts: turn.temporalFactsText, chart: view.chartText });
  turn.context = { ...contextSummary(view, ledger, { exactTokens: true, history: fit }) };
  turn.steps.push({
    role: 'context_selection',
    stage: 'answer',
    mode: view.mode,
    input_tokens: view.inputTokens,
    input_limit: view.inputLimit,
    included: view.included.map((i) => ({ stable_id: i.stableId, reason: i.reason })),
    excluded: view.excluded.map((e) => ({ stable_id: e.stableId, reason: e.reason })),
    measure_calls: view.measureCalls,
    record_cost_calls: view.recordCostCalls,
    history_fit_ms: t1 - t0,
    selection_ms: t2 - t1,
  });
}
