/**
 * Compute-only cost of one product turn: the engine, the response and the trace line for a 365-record
 * chart with an in-memory router (no sockets), so the figure is the hub's own work without the
 * kernel's. Baseline in the same run: parsing the request and serialising a response of the same size
 * (what any JSON gateway must do). Writes bench/results/engine-cpu.json.
 */
import path from 'node:path';
import { knowledgeSourceSettings, loadConfig } from '../server/config';
import { loadCatalog } from '../server/profiles/catalog';
import { SourceRegistry } from '../server/context/registry';
import { inlineSource } from '../server/context/sources/inline';
import { createKnowledgeBaseSource } from '../server/knowledge';
import { createTurn } from '../server/engine/run';
import { drainTurn } from '../server/engine/drain';
import { turnTrace } from '../server/trace/turn-trace';
import { sanitizedJson } from '../server/sanitize';
import { chatCompletion } from '../server/wire/openai-shapes';
import { parseChatRequest } from '../server/chat';
import { writeResult } from './support/results';
import { syntheticChart } from '../test/support/synthetic-chart';
import { CLEAN_INDEPTH_REVIEW, CLEAN_REVIEW, MARK, factChecker, found } from '../test/support/checkers';
const ROOT = path.resolve(__dirname, '..');
const config = loadConfig({ HUB_ANCHOR: '2026-03-10', LOG_LEVEL: 'silent' }, ROOT);
const catalog = loadCatalog({ profilesPath: config.profilesPath, promptsDir: config.promptsDir });
// Product profiles name the knowledge-base source as supplemental: registered, off (this bench is the chart's work).
const knowledgeOff = createKnowledgeBaseSource(knowledgeSourceSettings({ KNOWLEDGE_SOURCE: 'off' }), { engine: null });
const sources = new SourceRegistry([inlineSource({ maxChartRecords: 20000 }), knowledgeOff.source]);
const text = (m: any[]) => m.map((x) => x.content).join('\n');
const checker = factChecker((p) => [found(p.statement)]);
/** Scripted replies, as the fake router gives them in tests: every check passes cleanly. */
function reply(req: any): string {
  const t = text(req.messages);
  if (t.includes(MARK.grounding)) return checker({ path: '/v1/chat/completions', body: req } as any);
  if (t.includes(MARK.inDepthReview)) return CLEAN_INDEPTH_REVIEW;
  if (t.includes(MARK.answerReview)) return CLEAN_REVIEW;
  if (t.includes(MARK.inDepth)) return '{"claims":["A penicillin allergy is documented [18]."]}';
  return JSON.stringify({ answer: 'The latest weight is 55 kg [1].', citations: [1], blocks: [] });
}
const router: any = {
  async chat(req: any) {
    return { content: reply(req), finishReason: 'stop', usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110, cached_tokens: 90 }, model: req.model, queueWaitMs: 0, routerMs: 0 };
  },
  async inputTokens(req: any) { return Math.ceil(text(req.messages).length / 4); },
  hasInputTokens: () => true,
  async tokenize(b: any) { return { count: Math.ceil(b.content.length / 4) }; },
  async applyTemplate(b: any) { return text(b.messages); },
  slotState: () => ({ inFlight: 0, queued: 0, capacity: 1, maxQueue: 1 }),
};
const deps: any = { config, router, catalog, sources, localTokenizer: null };
const request = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: `Patient records (most recent first):\n${syntheticChart(365)}` }, { role: 'user', content: 'What is the latest weight?' }] });

async function turnOnce(raw: string): Promise<number> {
  const body = parseChatRequest(JSON.parse(raw));
  const profile = catalog.resolve(body.model);
  const turn = createTurn(body, profile, new AbortController().signal);
  const env = await drainTurn(turn, deps);
  const out = JSON.stringify(chatCompletion(body.model, JSON.stringify(env), turn.accounting.usage));
  const line = sanitizedJson(turnTrace(turn, { status: 'completed' }, { hubRevision: 'bench' }));
  return out.length + line.length;
}

async function cpuMsPer(n: number, run: () => Promise<unknown> | unknown): Promise<number> {
  const u0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await run();
  const u = process.cpuUsage(u0);
  return (u.user + u.system) / 1000 / n;
}

export async function runEngineCpuBench(turns = 200, warmup = 30) {
  const rows: Array<{ profile: string; engine_ms_per_turn: number }> = [];
  let responseBytes = 0;
  for (const profile of ['single-12b-bare', 'single-12b-checked']) {
    const raw = request(profile);
    for (let i = 0; i < warmup; i++) responseBytes = await turnOnce(raw);
    rows.push({ profile, engine_ms_per_turn: await cpuMsPer(turns, () => turnOnce(raw)) });
  }
  const raw = request('single-12b-bare');
  const filler = 'x'.repeat(responseBytes);
  const baseline = await cpuMsPer(turns, () => JSON.stringify({ content: JSON.stringify(JSON.parse(raw)) + filler }));
  const result = { chart_records: 365, turns, baseline_json_ms: baseline, rows };
  writeResult('engine-cpu', result);
  return result;
}

export function formatEngineCpu(r: Awaited<ReturnType<typeof runEngineCpuBench>>): string {
  const rows = r.rows.map((x) => `${x.profile} ${x.engine_ms_per_turn.toFixed(2)} ms (ratio ${(x.engine_ms_per_turn / r.baseline_json_ms).toFixed(1)}x)`).join('; ');
  return `engine compute per turn (365-record chart, in-memory router, no sockets; engine + response + trace line): ${rows} vs parse+serialise of the same bytes ${r.baseline_json_ms.toFixed(2)} ms`;
}
