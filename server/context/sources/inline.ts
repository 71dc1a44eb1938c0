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
        if (req.explicit) throw contextError('context_source_unavailable', 503, 'inline', 'The inline source was requested but the messages hold no chart.');
        // Nothing asked for and nothing found: proceed with an empty ledger (§2.1).
        return emptyLedger();
      }
      // In slices: a chart of thousands of records would otherwise hold the loop for tens of milliseconds.
      return parseChartInSlices(chart.chartText, { maxRecords: opts.maxChartRecords });
    },
  };
}
