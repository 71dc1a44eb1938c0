/**
 * Context selection cost on a synthetic 5,000-record chart: selectContext (exact counts against the
 * fake router's tokenizer) vs rendering and counting the whole chart once, in the same run.
 * Targets (issue): selection ≤ 2× one whole-chart count, ≤ 3 record-cost tokenizer calls, ≤ 4 prompt counts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseChart } from '../server/context/inline-chart';
import { renderLedger } from '../server/context/render';
import { buildContextMessage, stageMessages } from '../server/context/layout';
import { selectContext } from '../server/context/selector';
import { createRouterClient } from '../server/llm/router-client';
import { createTokenCounter } from '../server/llm/tokens';
import { writeResult } from './support/results';
import { spawnFakeRouter } from './support/spawn-router';

import { syntheticChart } from '../test/support/synthetic-chart';

const ROOT = path.resolve(__dirname, '..');
const MODEL = 'gemma-4-12b';
const QUESTION = 'How has the weight changed, and is the lisinopril dose still active?';
const INSTRUCTIONS = fs.readFileSync(path.join(ROOT, 'prompts/synthesis-answer.txt'), 'utf8');

const request = (chart: string) => ({ model: MODEL, messages: stageMessages(buildContextMessage({ chart }), { instructions: INSTRUCTIONS, history: [], question: QUESTION }) });

export async function benchContextSelection(records = 5000, rounds = 5, inputLimit = 24576 - 4096) {
  // The router runs in its own process: its tokenizer work must not be billed to the hub's event loop.
  const fake = await spawnFakeRouter({ models: [MODEL] });
  const router = createRouterClient({ baseUrl: fake.baseUrl, maxConcurrency: 1, maxQueue: 8, connectTimeoutMs: 5000, idleTimeoutMs: 0, discoveryTimeoutMs: 3000 });
  const ledger = parseChart(syntheticChart(records), { maxRecords: 20000 });
  const whole: number[] = [];
  const select: number[] = [];
  let last = { measureCalls: 0, recordCostCalls: 0, httpRequests: 0, mode: '', included: 0, inputTokens: 0 };
  try {
    for (let round = 0; round < rounds + 1; round++) {
      const wholeCounter = createTokenCounter({ router });
      const t0 = performance.now();
      await wholeCounter.countChat(request(renderLedger(ledger)));
      const t1 = performance.now();
      const counter = createTokenCounter({ router });
      const view = await selectContext({ ledger, question: QUESTION, inputLimit, measure: (chart) => counter.countChat(request(chart)), recordCosts: (texts) => counter.countRecords(MODEL, texts) });
      const t2 = performance.now();
      if (round === 0) continue; // warm-up
      whole.push(t1 - t0);
      select.push(t2 - t1);
      last = { measureCalls: view.measureCalls, recordCostCalls: view.recordCostCalls, httpRequests: counter.stats().http_requests, mode: view.mode, included: view.included.length, inputTokens: view.inputTokens };
    }
  } finally {
    await router.close();
    await fake.stop();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    records,
    whole_chart_count_ms: median(whole),
    selection_ms: median(select),
    ratio: median(select) / median(whole),
    prompt_counts: last.measureCalls,
    record_cost_calls: last.recordCostCalls,
    tokenizer_http_requests: last.httpRequests,
    selection_mode: last.mode,
    included_records: last.included,
    input_tokens: last.inputTokens,
    input_limit: inputLimit,
  };
}

if (require.main === module) {
  runContextSelectionBench().then((rows) => {
    for (const r of rows) process.stdout.write(`${formatContextSelection(r)}\n`);
  });
}

export type ContextSelectionResult = Awaited<ReturnType<typeof benchContextSelection>>;

export function formatContextSelection(r: ContextSelectionResult): string {
  return (
    `context selection, ${r.records} records, input limit ${r.input_limit}: selection ${r.selection_ms.toFixed(1)} ms vs whole-chart count ${r.whole_chart_count_ms.toFixed(1)} ms ` +
    `(ratio ${r.ratio.toFixed(2)}x, target <= 2x); prompt counts ${r.prompt_counts} (<= 4), record-cost calls ${r.record_cost_calls} (<= 3), ` +
    `tokenizer requests ${r.tokenizer_http_requests}; ${r.selection_mode}, ${r.included_records} records, ${r.input_tokens} tokens`
  );
}

/** The two budgets: the shipped 24k window (eligible evidence fits) and an 8k window (packing runs). */
export async function runContextSelectionBench(): Promise<ContextSelectionResult[]> {
  const rows = [await benchContextSelection(5000, 5, 24576 - 4096), await benchContextSelection(5000, 5, 8192 - 2048)];
  writeResult('context-selection', { rows });
  return rows;
}
