/**
 * Prefix reuse in the embedded engine (decision 8): the model calls of one clean single-12b-checked turn
 * (captured from the hub against the fake router, so every stage runs: Answer, review, grounding, In-Depth,
 * its review) replayed in order on the embedded llama.cpp engine with the tiny real GGUF — once with
 * prefix reuse, once without (the baseline, same run). Per stage: prompt tokens, tokens the engine
 * evaluated, tokens new to the turn; target: evaluated ≤ 1.15 × unique with reuse.
 * Writes bench/results/embedded-prefix.json.
 */
import fs from 'node:fs';
import { createEmbeddedEngine } from '../server/llm/embedded';
import type { ChatRequest } from '../server/llm/types';
import { isCall, MARK, scriptChecked } from '../test/support/checkers';
import type { RecordedRequest } from '../test/support/fake-router';
import { modelsDir, TINY_MODEL } from '../test/support/embedded-hub';
import { FakeRouter } from '../test/support/fake-router';
import { postJson, startTestHub } from '../test/support/hub';
import { ANSWER, MODEL, productRequest } from './support/product-fixtures';
import { runAsMain, writeResult } from './support/results';

const RECORDS = Number(process.env.BENCH_PREFIX_RECORDS ?? 12);
/** Completion tokens per replayed call: the tiny model's output is noise; prompt evaluation is what is measured. */
const MAX_TOKENS = 16;
const TARGET_RATIO = 1.15;

interface StageRow { stage: string; prompt_tokens: number; evaluated_tokens: number; new_unique_tokens: number }

/** Which stage a captured call is (the prompts' own marks, as the test checkers read them). */
function stageOf(req: RecordedRequest): string {
  const marks = ['grounding', 'inDepthReview', 'answerReview', 'inDepth'] as const;
  return marks.find((m) => isCall(req, m as keyof typeof MARK)) ?? 'answer';
}

/** The chat bodies the hub sends for one clean checked turn, in order, with their stage. */
async function captureCheckedTurn(): Promise<Array<{ stage: string; body: ChatRequest }>> {
  const router = new FakeRouter({ models: [MODEL] });
  await router.start();
  const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl });
  try {
    const answer = JSON.parse(ANSWER) as { answer: string; citations: number[] };
    scriptChecked(router, { answer: answer.answer, citations: answer.citations, claims: ['Metformin 500 mg was ordered on 2026-03-01 [2].'] });
    const res = await postJson(`${hub.url}/v1/chat/completions`, productRequest('single-12b-checked', RECORDS));
    if (res.status !== 200) throw new Error(`checked turn: HTTP ${res.status}`);
    await res.text();
    return router.chatRequests().map((r) => ({ stage: stageOf(r), body: r.body as ChatRequest }));
  } finally {
    await hub.close();
    await router.stop();
  }
}

async function replay(calls: Array<{ stage: string; body: ChatRequest }>, reuse: boolean, dir: string): Promise<StageRow[]> {
  const engine = createEmbeddedEngine({ modelsDir: dir, threads: 1, maxLoadedModels: 1, maxConcurrency: 1, maxQueue: 8, prefixReuse: reuse });
  const turnKey = {};
  const rows: StageRow[] = [];
  try {
    for (const { stage, body } of calls) {
      const r = await engine.client.chat({ ...body, max_tokens: MAX_TOKENS }, { turnKey });
      rows.push({ stage, prompt_tokens: r.usage.prompt_tokens, evaluated_tokens: r.promptEvaluation!.evaluatedTokens, new_unique_tokens: r.promptEvaluation!.newUniqueTokens! });
    }
  } finally {
    await engine.client.close();
  }
  return rows;
}

const sum = (rows: StageRow[], k: 'prompt_tokens' | 'evaluated_tokens' | 'new_unique_tokens') => rows.reduce((n, r) => n + r[k], 0);

export async function runEmbeddedPrefixBench() {
  const bodies = await captureCheckedTurn();
  const dir = modelsDir({ [MODEL]: { file: TINY_MODEL, context_size: 4096, threads: 1 } });
  try {
    const reuse = await replay(bodies, true, dir);
    const baseline = await replay(bodies, false, dir);
    const unique = sum(reuse, 'new_unique_tokens');
    const result = {
      records: RECORDS,
      calls: bodies.length,
      unique_prompt_tokens: unique,
      prompt_tokens: sum(reuse, 'prompt_tokens'),
      evaluated_with_reuse: sum(reuse, 'evaluated_tokens'),
      evaluated_without_reuse: sum(baseline, 'evaluated_tokens'),
      ratio_with_reuse: sum(reuse, 'evaluated_tokens') / unique,
      ratio_without_reuse: sum(baseline, 'evaluated_tokens') / unique,
      target_ratio: TARGET_RATIO,
      stages: reuse.map((r, i) => ({ ...r, evaluated_without_reuse: baseline[i].evaluated_tokens })),
    };
    writeResult('embedded-prefix', result);
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function formatEmbeddedPrefix(r: Awaited<ReturnType<typeof runEmbeddedPrefixBench>>): string {
  const table = r.stages.map((s) => `  ${s.stage}: prompt ${s.prompt_tokens}, evaluated ${s.evaluated_tokens} (without reuse ${s.evaluated_without_reuse}), new to the turn ${s.new_unique_tokens}`).join('\n');
  return `embedded prefix reuse (single-12b-checked, ${r.records} records, ${r.calls} calls): evaluated ${r.evaluated_with_reuse} / unique ${r.unique_prompt_tokens} = ${r.ratio_with_reuse.toFixed(3)}× (target ≤ ${r.target_ratio}); without reuse ${r.evaluated_without_reuse} = ${r.ratio_without_reuse.toFixed(3)}×\n${table}`;
}

if (require.main === module) runAsMain('embedded prefix', runEmbeddedPrefixBench, formatEmbeddedPrefix);
