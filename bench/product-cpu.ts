/**
 * Hub CPU time per product turn, model time excluded: the hub runs in its own process (the fake router in
 * another), and its CPU time (user + system, process.cpuUsage() asked over IPC) is read before and after
 * TURNS blocking turns on a RECORDS-record synthetic chart, sent one at a time after WARMUP turns.
 * Profiles: single-12b-bare (Answer + In-Depth) and single-12b-checked (plus model review and citation
 * grounding, scripted to pass cleanly). Baseline: the same client sending the same number of requests
 * straight to the router (the hub's own Answer request, captured from a turn), the router's CPU time
 * measured the same way. Target (decision 27): ≤ 7 router requests per clean checked turn; issue 11's CPU
 * aims (bare ≤ 8 ms, checked ≤ 15 ms) are printed beside the figures.
 * Transport floor: the router requests of one turn (counts and chats, captured at the router) replayed
 * TURNS times from this process with undici, as the hub sends them, and this process's CPU time read:
 * what the HTTP exchanges alone cost any client, before any hub work.
 * Set BENCH_HUB_CPU_PROF=<dir> for a V8 CPU profile of each hub child (node --cpu-prof).
 * Writes bench/results/product-cpu.json.
 */
import { Pool } from 'undici';
import { MARK } from '../test/support/checkers';
import { MODEL, productRequest, productScripts } from './support/product-fixtures';
import { runAsMain, writeResult } from './support/results';
import { atMost, CHECKED_TURN_MAX_ROUTER_REQUESTS, type TargetRow } from './support/targets';
import { spawnHub, type SpawnedHub } from './support/spawn-hub';
import { spawnFakeRouter, type SpawnedRouter } from './support/spawn-router';
import { turnReplay } from './support/turn-replay';

const RECORDS = Number(process.env.BENCH_PRODUCT_RECORDS ?? 365);
const TURNS = Number(process.env.BENCH_PRODUCT_TURNS ?? 150);
const WARMUP = Number(process.env.BENCH_PRODUCT_WARMUP ?? 30);
/** Issue 11's CPU aims per turn, and decision 27's router requests (counts and chats) per checked turn. */
const TARGETS: Record<string, { cpuMs: number; routerRequests?: number }> = {
  'single-12b-bare': { cpuMs: 8 },
  'single-12b-checked': { cpuMs: 15, routerRequests: CHECKED_TURN_MAX_ROUTER_REQUESTS },
};
const DEFAULT_TARGET = { cpuMs: 15 };
const PATH = '/v1/chat/completions';

async function post(pool: Pool, payload: string): Promise<Record<string, any>> {
  const res = await pool.request({ method: 'POST', path: PATH, headers: { 'content-type': 'application/json' }, body: payload });
  const json = (await res.body.json()) as Record<string, any>;
  if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}: ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

/** CPU time (ms) `child` spends while `run` sends its requests. */
async function cpuDuring(child: { usage(): Promise<{ cpuUs: number; systemUs: number }> }, run: () => Promise<void>): Promise<{ ms: number; systemMs: number }> {
  const before = await child.usage();
  await run();
  const after = await child.usage();
  return { ms: (after.cpuUs - before.cpuUs) / 1000, systemMs: (after.systemUs - before.systemUs) / 1000 };
}

/** This process's CPU (ms) per turn for replaying the last turn's router requests TURNS times. */
async function transportFloor(router: SpawnedRouter, perTurn: number): Promise<number> {
  const turns = await turnReplay(router, perTurn);
  try {
    await turns.replay(WARMUP);
    const u0 = process.cpuUsage();
    await turns.replay(TURNS);
    const u = process.cpuUsage(u0);
    return (u.user + u.system) / 1000 / TURNS;
  } finally {
    await turns.close();
  }
}

interface ProfileCpu {
  profile: string;
  turns: number;
  router_calls_per_turn: number;
  hub_cpu_ms_per_turn: number;
  /** The kernel's part of hub_cpu_ms_per_turn. */
  hub_system_ms_per_turn: number;
  /** Router requests of every kind (exact counts and chats) per turn. */
  router_requests_per_turn: number;
  /** Client CPU of replaying one turn's router requests, no hub logic (see header). */
  transport_floor_ms_per_turn: number;
  router_cpu_ms_per_turn: number;
  answer_validation: string;
  in_depth: string;
}

async function profileCpu(hub: SpawnedHub, router: SpawnedRouter, pool: Pool, profile: string): Promise<ProfileCpu> {
  const payload = JSON.stringify(productRequest(profile, RECORDS));
  let last: Record<string, any> = {};
  for (let i = 0; i < WARMUP; i++) last = await post(pool, payload);
  const before = await router.usage();
  const calls0 = before.counters.chatRequests;
  const requests0 = before.counters.requests;
  const routerBefore = before.cpuUs;
  const hubMs = await cpuDuring(hub, async () => {
    for (let i = 0; i < TURNS; i++) last = await post(pool, payload);
  });
  const routerAfter = await router.usage();
  const requestsPerTurn = (routerAfter.counters.requests - requests0) / TURNS;
  const floorMs = await transportFloor(router, requestsPerTurn);
  const envelope = JSON.parse(last.choices[0].message.content) as Record<string, any>;
  return {
    profile,
    turns: TURNS,
    router_calls_per_turn: (routerAfter.counters.chatRequests - calls0) / TURNS,
    hub_cpu_ms_per_turn: hubMs.ms / TURNS,
    hub_system_ms_per_turn: hubMs.systemMs / TURNS,
    router_requests_per_turn: requestsPerTurn,
    transport_floor_ms_per_turn: floorMs,
    router_cpu_ms_per_turn: (routerAfter.cpuUs - routerBefore) / 1000 / TURNS,
    answer_validation: String(envelope.answerValidation?.status),
    in_depth: String(envelope.inDepth?.status),
  };
}

export async function benchProductCpu() {
  const router = await spawnFakeRouter({ models: [MODEL] }, productScripts());
  let hub: SpawnedHub | undefined;
  let viaHub: Pool | undefined;
  let direct: Pool | undefined;
  try {
    hub = await spawnHub({ LLM_BASE_URL: router.baseUrl });
    viaHub = new Pool(hub.url, { connections: 1 });
    direct = new Pool(router.baseUrl, { connections: 1 });
    // BENCH_PRODUCT_PROFILES narrows the run (e.g. to profile one profile with BENCH_HUB_CPU_PROF).
    const profiles = (process.env.BENCH_PRODUCT_PROFILES ?? 'single-12b-bare,single-12b-checked').split(',').filter(Boolean);
    const rows: ProfileCpu[] = [];
    for (const profile of profiles) rows.push(await profileCpu(hub, router, viaHub, profile));
    // Baseline: the hub's Answer request (the largest call of a turn) sent straight to the router.
    const answerCall = (await router.lastChats(8)).find((c) => !Object.values(MARK).some((m) => JSON.stringify(c).includes(m)));
    if (!answerCall) throw new Error('no Answer request captured');
    const payload = JSON.stringify(answerCall);
    for (let i = 0; i < WARMUP; i++) await post(direct, payload);
    const directPool = direct;
    const routerMs = await cpuDuring(router, async () => {
      for (let i = 0; i < TURNS; i++) await post(directPool, payload);
    });
    const directPerRequest = routerMs.ms / TURNS;
    return {
      chart_records: RECORDS,
      warmup_turns: WARMUP,
      direct_router_cpu_ms_per_request: directPerRequest,
      profiles: rows.map((r) => {
        const target = TARGETS[r.profile] ?? DEFAULT_TARGET;
        return {
          ...r,
          ratio_vs_direct_request: r.hub_cpu_ms_per_turn / directPerRequest,
          target_cpu_ms: target.cpuMs,
          meets_cpu_target: r.hub_cpu_ms_per_turn <= target.cpuMs,
          target_router_requests: target.routerRequests ?? null,
          meets_router_requests_target: target.routerRequests === undefined ? null : r.router_requests_per_turn <= target.routerRequests,
        };
      }),
    };
  } finally {
    await viaHub?.destroy();
    await direct?.destroy();
    await hub?.stop();
    await router.stop();
  }
}

export type ProductCpuResult = Awaited<ReturnType<typeof benchProductCpu>>;

/** Decision 27's target: router requests per clean checked turn (with the turn's CPU and its floor beside it). */
export function productTargetRows(r: ProductCpuResult): TargetRow[] {
  return r.profiles
    .filter((p) => p.target_router_requests !== null)
    .map((p) => atMost(`${p.profile} router requests per turn (${r.chart_records} records)`, p.router_requests_per_turn, p.target_router_requests!, '', `${p.router_calls_per_turn} model calls; hub CPU ${p.hub_cpu_ms_per_turn.toFixed(1)} ms/turn, transport floor ${p.transport_floor_ms_per_turn.toFixed(1)} ms`));
}

export function formatProductCpu(r: ProductCpuResult): string {
  const row = (p: ProductCpuResult['profiles'][number]) =>
    `${p.profile} ${p.hub_cpu_ms_per_turn.toFixed(1)} ms/turn (issue 11's aim ≤ ${p.target_cpu_ms}: ${p.meets_cpu_target ? 'met' : 'missed'}; kernel ${p.hub_system_ms_per_turn.toFixed(1)} ms; ` +
    `${p.router_requests_per_turn} router requests${p.target_router_requests === null ? '' : ` (target ≤ ${p.target_router_requests}: ${p.meets_router_requests_target ? 'met' : 'MISSED'})`}, of them ${p.router_calls_per_turn} model calls; ` +
    `transport floor ${p.transport_floor_ms_per_turn.toFixed(1)} ms; ratio ${p.ratio_vs_direct_request.toFixed(1)}x; ${p.answer_validation}, In-Depth ${p.in_depth})`;
  return (
    `hub CPU per product turn (${r.chart_records}-record chart, blocking, ${r.profiles[0].turns} turns after ${r.warmup_turns} warm-ups, hub in its own process): ` +
    `${r.profiles.map(row).join('; ')} vs router CPU ${r.direct_router_cpu_ms_per_request.toFixed(1)} ms per direct Answer request`
  );
}

export async function runProductCpuBench(): Promise<ProductCpuResult> {
  const r = await benchProductCpu();
  writeResult('product-cpu', r);
  return r;
}

if (require.main === module) runAsMain('product CPU', runProductCpuBench, formatProductCpu);
