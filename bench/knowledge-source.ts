/**
 * What the in-process knowledge-base source costs a product turn (issue #17 item 3): hub CPU time per
 * blocking single-12b-bare turn with KNOWLEDGE_SOURCE=auto over the bundled demo KB (in-memory SQLite,
 * loaded at start-up) against the same turns with KNOWLEDGE_SOURCE=off, both hubs in their own processes,
 * the same fake router (model time excluded), measured in the same run. Two charts: the Ops benchmarks'
 * synthetic 365-record chart ("latest weight?", metformin orders) and a 3-record warfarin chart asking about
 * amoxicillin (the safety sweep's case). Prints the ratio; writes bench/results/knowledge-source.json.
 */
import { Pool } from 'undici';
import { MODEL, productChart, productScripts } from './support/product-fixtures';
import { runAsMain, writeResult } from './support/results';
import { ANTIBIOTIC_QUESTION, WARFARIN_CHART } from '../test/support/knowledge-demo';
import { spawnHub, type SpawnedHub } from './support/spawn-hub';
import { spawnFakeRouter } from './support/spawn-router';

const TURNS = Number(process.env.BENCH_KB_TURNS ?? 100);
const WARMUP = Number(process.env.BENCH_KB_WARMUP ?? 20);
const PROFILE = 'single-12b-bare';
const CASES = [
  { name: 'synthetic-365', chart: productChart(365), question: 'What is the latest weight?' },
  { name: 'warfarin-amoxicillin', chart: WARFARIN_CHART, question: ANTIBIOTIC_QUESTION },
];

async function post(pool: Pool, payload: string): Promise<Record<string, any>> {
  const res = await pool.request({ method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, body: payload });
  const json = (await res.body.json()) as Record<string, any>;
  if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}: ${JSON.stringify(json).slice(0, 300)}`);
  return JSON.parse(json.choices[0].message.content) as Record<string, any>;
}

/** Hub CPU ms per turn over TURNS turns (after WARMUP), and the last envelope's context summary. */
async function perTurn(hub: SpawnedHub, payload: string): Promise<{ cpuMs: number; ledgerRecords: number; sources: string[] }> {
  const pool = new Pool(hub.url, { connections: 1 });
  try {
    let last: Record<string, any> = {};
    for (let i = 0; i < WARMUP; i++) last = await post(pool, payload);
    const before = await hub.usage();
    for (let i = 0; i < TURNS; i++) last = await post(pool, payload);
    const after = await hub.usage();
    return { cpuMs: (after.cpuUs - before.cpuUs) / 1000 / TURNS, ledgerRecords: Number(last.context?.ledger_records ?? 0), sources: last.context?.sources ?? [] };
  } finally {
    await pool.destroy();
  }
}

export async function benchKnowledgeSource() {
  const router = await spawnFakeRouter({ models: [MODEL] }, productScripts());
  const hubs: SpawnedHub[] = [];
  try {
    const off = await spawnHub({ LLM_BASE_URL: router.baseUrl, KNOWLEDGE_SOURCE: 'off' });
    hubs.push(off);
    const on = await spawnHub({ LLM_BASE_URL: router.baseUrl, KNOWLEDGE_SOURCE: 'auto', KNOWLEDGE_DB_PATH: ':memory:' });
    hubs.push(on);
    const rows = [];
    for (const c of CASES) {
      const payload = JSON.stringify({ model: PROFILE, messages: [{ role: 'user', content: c.chart }, { role: 'user', content: c.question }] });
      // Alternated, so drift of the machine during the run falls on both arms alike.
      const baseline = await perTurn(off, payload);
      const withSource = await perTurn(on, payload);
      rows.push({
        case: c.name,
        off_cpu_ms_per_turn: baseline.cpuMs,
        on_cpu_ms_per_turn: withSource.cpuMs,
        added_cpu_ms_per_turn: withSource.cpuMs - baseline.cpuMs,
        ratio_on_vs_off: withSource.cpuMs / baseline.cpuMs,
        ledger_records_off: baseline.ledgerRecords,
        ledger_records_on: withSource.ledgerRecords,
        sources_on: withSource.sources,
      });
    }
    return { profile: PROFILE, turns: TURNS, warmup_turns: WARMUP, cases: rows };
  } finally {
    for (const h of hubs) await h.stop();
    await router.stop();
  }
}

export type KnowledgeSourceResult = Awaited<ReturnType<typeof benchKnowledgeSource>>;

export function formatKnowledgeSource(r: KnowledgeSourceResult): string {
  const row = (c: KnowledgeSourceResult['cases'][number]) =>
    `${c.case}: ${c.on_cpu_ms_per_turn.toFixed(1)} ms/turn with the source vs ${c.off_cpu_ms_per_turn.toFixed(1)} ms off (+${c.added_cpu_ms_per_turn.toFixed(1)} ms, ratio ${c.ratio_on_vs_off.toFixed(2)}x; ledger ${c.ledger_records_off} → ${c.ledger_records_on} records)`;
  return `knowledge-base source, hub CPU per ${r.profile} turn (in process, demo KB, ${r.turns} turns after ${r.warmup_turns} warm-ups): ${r.cases.map(row).join('; ')}`;
}

export async function runKnowledgeSourceBench(): Promise<KnowledgeSourceResult> {
  const r = await benchKnowledgeSource();
  writeResult('knowledge-source', r);
  return r;
}

if (require.main === module) runAsMain('knowledge-source', runKnowledgeSourceBench, formatKnowledgeSource);
