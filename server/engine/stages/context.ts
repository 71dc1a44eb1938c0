/** `context` stage: build the evidence ledger from the request's sources, then the Answer's context view. */
import { extractChart, explainKnowledgeBudgetFailure } from '../../context';
import { selectAnswerContext, wholeChartContext } from '../context-selection';
import { prepareTemporal } from '../temporal';
import { adoptLedger, openChart } from '../slices/context';
import { recordStep } from '../steps';
import type { Stage } from '../types';
import { yieldIfLarge } from '../../event-loop';
import { addDrugEvidence, explainBudgetFailure } from './drug-safety';

export const contextStage: Stage = {
  name: 'context',
  async run(turn, deps) {
    const started = performance.now();
    const { request } = turn;
    const chart = extractChart(request.messages);
    const sourced = await deps.sources.buildLedger({
      messages: request.messages,
      patient: typeof request.patient === 'string' && request.patient !== '' ? request.patient : null,
      context: request.context ?? null,
      supplementalSources: turn.profile.context.supplementalSources,
      question: chart.question,
      hasInlineChart: chart.chartMessageIndices.length > 0,
      signal: turn.signal,
      // A source's account (QueryStore: snapshot, cache outcome, slice tiers) goes to the trace, failures included.
      report: (r) => recordStep(turn, { role: 'context_source', ...r }),
    });
    const fetched = performance.now();
    await yieldIfLarge(sourced.records.length);
    const chartIdx = new Set(chart.chartMessageIndices);
    // The question and the chart are placed by the layout; prior prose turns are history.
    openChart(
      turn,
      chart.question,
      request.messages.filter((m, i) => !chartIdx.has(i) && i !== chart.questionIndex && (m.role === 'user' || m.role === 'assistant')),
    );
    // Facts come from the complete chart before any selection (§6.1) and open the context message.
    await prepareTemporal(turn, deps, sourced);
    await yieldIfLarge(sourced.records.length);
    // Drug references join after the patient records (§5.6): the complete ledger every stage and reference reads.
    const drugStarted = performance.now();
    const ledger = addDrugEvidence(turn, deps, sourced);
    const drugMs = performance.now() - drugStarted;
    adoptLedger(turn, ledger);
    try {
      if (turn.profile.context.exactTokenizer && turn.profile.models.answer) await selectAnswerContext(turn, deps, ledger);
      else wholeChartContext(turn, ledger);
    } catch (err) {
      throw explainKnowledgeBudgetFailure(explainBudgetFailure(err, ledger), ledger);
    }
    recordStep(turn, {
      role: 'context_preparation_timing',
      source_fetch_ms: fetched - started,
      drug_safety_ms: drugMs,
      total_ms: performance.now() - started,
      sources: ledger.sources,
      ledger_records: ledger.records.length,
      // Counted once, by the context summary the selection just wrote.
      records_by_source: turn.context.summary?.records_by_source,
    });
  },
};
