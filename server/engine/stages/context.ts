/** `context` stage: build the evidence ledger from the request's sources and the shared context message. */
import { extractChart, renderLedger } from '../../context/inline-chart';
import { buildContextMessage } from '../../context/layout';
import type { Stage } from '../types';

export const contextStage: Stage = {
  name: 'context',
  async run(turn, deps) {
    const started = performance.now();
    const { request } = turn;
    const chart = extractChart(request.messages);
    const ledger = await deps.sources.buildLedger({
      messages: request.messages,
      patient: typeof request.patient === 'string' && request.patient !== '' ? request.patient : null,
      context: request.context ?? null,
      supplementalSources: turn.profile.context.supplementalSources,
      question: chart.question,
      hasInlineChart: chart.chartMessageIndices.length > 0,
      signal: turn.signal,
    });
    turn.ledger = ledger;
    turn.question = chart.question;
    const chartIdx = new Set(chart.chartMessageIndices);
    // The question and the chart are placed by the layout; prior prose turns are history.
    turn.conversation = request.messages.filter(
      (m, i) => !chartIdx.has(i) && i !== chart.questionIndex && (m.role === 'user' || m.role === 'assistant'),
    );
    turn.contextMessage = buildContextMessage({ chart: renderLedger(ledger) });
    turn.steps.push({ role: 'context', sources: ledger.sources, ledger_records: ledger.records.length, duration_ms: performance.now() - started });
  },
};
