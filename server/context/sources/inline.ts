/** The inline source: the chart the client put in the messages (§5.3, decision 20). */
import { contextError } from '../../errors';
import { extractChart, parseChartInSlices } from '../inline-chart';
import type { ContextSource } from '../source';
import { emptyLedger } from '../types';

export function inlineSource(opts: { maxChartRecords: number }): ContextSource {
  return {
    name: 'inline',
    priority: 10,
    supportsPatient: false,
    async fetch(req) {
      const chart = extractChart(req.messages);
      if (chart.chartMessageIndices.length === 0) {
        if (req.explicit) throw contextError('context_source_unavailable', 'inline', 'The inline source was requested but the messages hold no chart.');
        // Nothing asked for and nothing found: proceed with an empty ledger (§2.1).
        req.report?.({ source: 'inline', status: 'no_chart', ledger_records: 0 });
        return emptyLedger();
      }
      // In slices: a chart of thousands of records would otherwise hold the loop for tens of milliseconds.
      const ledger = await parseChartInSlices(chart.chartText, { maxRecords: opts.maxChartRecords });
      // The chart's own records, traced apart from what supplemental sources add after them.
      req.report?.({ source: 'inline', status: 'ok', ledger_records: ledger.records.length });
      return ledger;
    },
  };
}
