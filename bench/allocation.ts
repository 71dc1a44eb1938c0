/**
 * What the hub allocates per blocking leg and per product turn (bench/support/alloc-sampler.ts: V8's
 * sampling heap profiler in the hub's own process, collected objects included), with the hub functions
 * that allocate most. Garbage collection is the largest single item of a leg's and a turn's CPU profile,
 * and allocation volume, unlike CPU time, barely moves with this machine's speed: a change that allocates
 * less shows here even when the CPU benchmarks cannot resolve it.
 * Baselines from the same run: for the leg, a do-nothing undici proxy (its own process) relaying the
 * router body the hub sends; for a turn, this process replaying the turn's router requests (counts and
 * chats, as captured at the router) with undici: what the HTTP exchanges alone allocate.
 * Writes bench/results/allocation.json.
 */
import path from 'node:path';
import { Pool } from 'undici';
import { ANSWER, CHART, HUB_MODEL, capturedRouterRequest } from './leg-overhead';
import { allocatedDuring, startAllocationSampling, stopAllocationSampling, type AllocationReport, type AllocationSite } from './support/alloc-sampler';
import { REGISTER_TS, spawnBenchChild } from './support/child';
import { MODEL, productRequest, productScripts } from './support/product-fixtures';
import { runAsMain, writeResult } from './support/results';
import { spawnHub } from './support/spawn-hub';
import { spawnFakeRouter, type SpawnedRouter } from './support/spawn-router';
import { turnReplay } from './support/turn-replay';

const LEGS = Number(process.env.BENCH_ALLOC_LEGS ?? 1000);
const TURNS = Number(process.env.BENCH_ALLOC_TURNS ?? 60);
const WARMUP = 100;
const RECORDS = 365;
const PROFILES = ['single-12b-bare', 'single-12b-checked'];
const KB = 1024;

async function send(pool: Pool, requestPath: string, payload: string): Promise<void> {
  const res = await pool.request({ method: 'POST', path: requestPath, headers: { 'content-type': 'application/json' }, body: payload });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${requestPath}: status ${res.statusCode}: ${text.slice(0, 200)}`);
}

async function repeat(n: number, one: () => Promise<void>): Promise<void> {
  for (let i = 0; i < n; i++) await one();
}

export interface AllocationRow {
  what: string;
  /** Requests (legs) or turns measured. */
  n: number;
  hub_kb_each: number;
  baseline: string;
  baseline_kb_each: number;
  ratio: number;
  /** Where the hub's bytes went, KB per leg or turn. */
  top_sites: Array<{ site: string; kb_each: number }>;
}

function row(what: string, n: number, hub: AllocationReport, baseline: string, baselineBytes: number): AllocationRow {
  const each = (b: number) => b / n / KB;
  return {
    what,
    n,
    hub_kb_each: each(hub.bytes),
    baseline,
    baseline_kb_each: each(baselineBytes),
    ratio: hub.bytes / baselineBytes,
    top_sites: hub.sites.map((s: AllocationSite) => ({ site: s.site, kb_each: each(s.bytes) })),
  };
}

/** What this process allocates replaying the last turn's router requests `turns` times (support/turn-replay.ts). */
async function replayAllocation(router: SpawnedRouter, perTurn: number, turns: number): Promise<number> {
  const replay = await turnReplay(router, perTurn);
  try {
    await replay.replay(turns);
    await startAllocationSampling();
    const failed = await replay.replay(turns).then(() => null, (err: unknown) => err);
    const report = await stopAllocationSampling();
    if (failed) throw failed;
    return report.bytes;
  } finally {
    await replay.close();
  }
}

export async function benchAllocation(): Promise<AllocationRow[]> {
  const rows: AllocationRow[] = [];
  const messages = [{ role: 'user', content: CHART }, { role: 'user', content: 'What is the latest weight?' }];
  const routerBody = await capturedRouterRequest({ model: HUB_MODEL, messages });
  const legRouter = await spawnFakeRouter({ models: ['gemma-4-12b'], defaultReply: { content: ANSWER } });
  try {
    const hub = await spawnHub({ LLM_BASE_URL: legRouter.baseUrl });
    const proxy = await spawnBenchChild(['-r', REGISTER_TS, path.join(__dirname, 'support/passthrough-proxy.ts'), legRouter.baseUrl]);
    const viaHub = new Pool(hub.url, { connections: 1 });
    const viaProxy = new Pool(proxy.url, { connections: 1 });
    try {
      const hubLeg = JSON.stringify({ model: HUB_MODEL, messages });
      const proxyLeg = JSON.stringify(routerBody);
      await repeat(WARMUP, () => send(viaHub, '/v1/chat/completions', hubLeg));
      await repeat(WARMUP, () => send(viaProxy, '/v1/chat/completions', proxyLeg));
      const h = await allocatedDuring(hub, () => repeat(LEGS, () => send(viaHub, '/v1/chat/completions', hubLeg)));
      const p = await allocatedDuring(proxy, () => repeat(LEGS, () => send(viaProxy, '/v1/chat/completions', proxyLeg)));
      rows.push(row('blocking leg', LEGS, h, 'do-nothing proxy', p.bytes));
    } finally {
      await viaHub.destroy();
      await viaProxy.destroy();
      await proxy.stop();
      await hub.stop();
    }
  } finally {
    await legRouter.stop();
  }

  const router = await spawnFakeRouter({ models: [MODEL] }, productScripts());
  try {
    const hub = await spawnHub({ LLM_BASE_URL: router.baseUrl });
    const pool = new Pool(hub.url, { connections: 1 });
    try {
      for (const profile of PROFILES) {
        const payload = JSON.stringify(productRequest(profile, RECORDS));
        await repeat(WARMUP / 4, () => send(pool, '/v1/chat/completions', payload));
        const requests0 = (await router.usage()).counters.requests;
        const h = await allocatedDuring(hub, () => repeat(TURNS, () => send(pool, '/v1/chat/completions', payload)));
        const perTurn = ((await router.usage()).counters.requests - requests0) / TURNS;
        rows.push(row(`${profile} turn (${RECORDS} records, ${perTurn} router requests)`, TURNS, h, 'its router requests replayed', await replayAllocation(router, perTurn, TURNS)));
      }
    } finally {
      await pool.destroy();
      await hub.stop();
    }
  } finally {
    await router.stop();
  }
  return rows;
}

export function formatAllocation(rows: AllocationRow[]): string {
  const kb = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
  const one = (r: AllocationRow) =>
    `${r.what}: hub ${kb(r.hub_kb_each)} KB each vs ${r.baseline} ${kb(r.baseline_kb_each)} KB (ratio ${r.ratio.toFixed(1)}x); ` +
    `most: ${r.top_sites.slice(0, 6).map((s) => `${s.site} ${kb(s.kb_each)}`).join(', ')}`;
  return `allocation (V8 sampling heap profiler in the hub's process, collected objects included):\n${rows.map((r) => `  ${one(r)}`).join('\n')}`;
}

export async function runAllocationBench(): Promise<AllocationRow[]> {
  const rows = await benchAllocation();
  writeResult('allocation', { rows });
  return rows;
}

if (require.main === module) runAsMain('allocation', runAllocationBench, formatAllocation);
