/** `context` stage: build the evidence ledger from the request's sources and the shared context message. */
import { buildContext } from '../../context/sources';
import { buildContextMessage } from '../../context/layout';
import { renderLedger } from '../../context/inline-chart';
import type { Stage } from '../types';

export const contextStage: Stage = {
  name: 'context',
  async run(turn, deps) {
    const started = performance.now();
    const built = buildContext({
      messages: turn.request.messages,
      patient: typeof turn.request.patient === 'string' && turn.request.patient !== '' ? turn.request.patient : null,
      context: turn.request.context ?? null,
      supplementalSources: turn.profile.context.supplementalSources,
      maxChartRecords: deps.config.maxChartRecords,
    });
    turn.ledger = built.ledger;
    turn.question = built.chart.question;
    const chartIdx = new Set(built.chart.chartMessageIndices);
    // The question and the chart are placed by the layout; prior prose turns are history.
    turn.conversation = turn.request.messages.filter(
      (m, i) => !chartIdx.has(i) && i !== built.chart.questionIndex && (m.role === 'user' || m.role === 'assistant'),
    );
    turn.contextMessage = buildContextMessage({ chart: renderLedger(built.ledger) });
    turn.steps.push({ role: 'context', sources: built.ledger.sources, ledger_records: built.ledger.records.length, duration_ms: performance.now() - started });
  },
};
