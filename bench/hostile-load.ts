/**
 * Hostile load: the fuzz suite's corpus (test/support/fuzz: 2,036 hostile bodies, the fake router answering
 * every model call with that suite's hostile output) sent CONCURRENCY at a time to a hub in its own process,
 * configured as the fuzz suite configures it, the fake router in another, while a prober in a third asks
 * the hub's /health every PROBE_MS. Figures: the hub's longest event-loop delay over the run (its own
 * /metrics: prom-client samples every 10 ms, so an idle loop reads ~10 ms and a stall of S ms reads S to
 * S + 10), the /health latency the prober saw (p50, p99, max; baseline: the same hub idle, probed the same
 * way for IDLE_MS first), and cases/s.
 * Targets: hub event-loop max ≤ 100 ms, /health p99 ≤ 50 ms. Writes bench/results/hostile-load.json.
 * The hub is warmed first on the corpus's first WARM_CASES cases (a cold hub is slow on any input).
 * /health latency counts loop turns, not one stall: a probe on a new connection needs an accept, a read and
 * a write, each waiting for the turn in progress, so under load its p99 runs to a few times the loop's max.
 * HOSTILE_SCALE (default 1) scales the corpus as FUZZ_SCALE does the suite's; FUZZ_SEED picks another one.
 */
import path from 'node:path';
import { buildCases, FUZZ_DEFAULT_SEED, FUZZ_HUB_ENV, FUZZ_ROUTER_MODELS, type FuzzCase } from '../test/support/fuzz/hostile-bodies';
import { runPool } from '../test/support/fuzz/pool';
import { fuzzSeed } from '../test/support/fuzz/rng';
import { CaseCosts, sendCase } from '../test/support/fuzz/send';
import { REGISTER_TS, spawnBenchChild, type BenchChild } from './support/child';
import type { ProbeReport } from './support/prober-process';
import { runAsMain, writeResult } from './support/results';
import { spawnHub, type SpawnedHub } from './support/spawn-hub';
import { spawnFakeRouter, type SpawnedRouter } from './support/spawn-router';
import { pct } from './support/timed-stream';

const CONCURRENCY = 16;
const PROBE_MS = 20;
/** How long the idle hub's /health is probed first (the baseline), after WARM_MS of probes not counted. */
const IDLE_MS = 2000;
const WARM_MS = 500;
const REQUEST_TIMEOUT_MS = 60_000;
/** Cases sent once before the measured run (which then sends every case). */
const WARM_CASES = 100;
/** The router forgets its request log (it keeps every body) after this many cases. */
const ROUTER_RESET_EVERY = 200;
export const HOSTILE_TARGETS = { hubLoopMaxMs: 100, healthP99Ms: 50 };

export async function benchHostileLoad(opts: { seed?: number; scale?: number } = {}) {
  const seed = opts.seed ?? fuzzSeed(FUZZ_DEFAULT_SEED);
  const scale = opts.scale ?? Number(process.env.HOSTILE_SCALE ?? 1);
  const { cases } = buildCases({ seed, scale });
  let router: SpawnedRouter | undefined;
  let hub: SpawnedHub | undefined;
  let prober: BenchChild | undefined;
  try {
    router = await spawnFakeRouter({ models: FUZZ_ROUTER_MODELS }, [{ replyWith: 'hostile', hostile: { seed, scale } }]);
    hub = await spawnHub({ LLM_BASE_URL: router.baseUrl, ...FUZZ_HUB_ENV });
    prober = await spawnBenchChild(['-r', REGISTER_TS, path.join(__dirname, 'support/prober-process.ts'), `${hub.url}/health`, String(PROBE_MS)]);
    const statuses: Record<string, number> = {};
    const costs = new CaseCosts();
    let requestErrors = 0;
    let done = 0;
    const send = async (c: FuzzCase): Promise<void> => {
      try {
        const out = await sendCase(hub!.url, c, REQUEST_TIMEOUT_MS);
        costs.add(c, out.ms);
        statuses[out.status] = (statuses[out.status] ?? 0) + 1;
      } catch {
        requestErrors++;
      }
      if (++done % ROUTER_RESET_EVERY === 0) await router!.ask({ type: 'reset' });
    };

    // A cold hub is slow on its first cases whatever they hold (lazy compilation): warm it on the corpus's first ones.
    await runPool(cases.slice(0, WARM_CASES), CONCURRENCY, (c) => sendCase(hub!.url, c, REQUEST_TIMEOUT_MS).then(() => undefined, () => undefined));
    await router.ask({ type: 'reset' });
    // Baseline: /health of the same hub, idle, probed the same way (after a warm-up of the prober's connections).
    await prober.ask({ type: 'start' });
    await new Promise((r) => setTimeout(r, WARM_MS));
    await prober.ask({ type: 'stop' });
    await prober.ask({ type: 'start' });
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idle = (await prober.ask<ProbeReport>({ type: 'stop' })).latenciesMs;

    const hubCpuBefore = (await hub.usage()).cpuUs;
    await hub.loopLag(); // prom-client resets its loop histogram at each scrape: the next one covers the run alone
    await prober.ask({ type: 'start' });
    const t0 = performance.now();
    await runPool(cases, CONCURRENCY, send);
    const elapsedMs = performance.now() - t0;
    const probes = await prober.ask<ProbeReport>({ type: 'stop' });
    const lag = await hub.loopLag();
    const hubCpuMs = ((await hub.usage()).cpuUs - hubCpuBefore) / 1000;
    const health = probes.latenciesMs;
    return {
      seed,
      cases: cases.length,
      concurrency: CONCURRENCY,
      probe_interval_ms: PROBE_MS,
      elapsed_ms: elapsedMs,
      cases_per_s: (cases.length / elapsedMs) * 1000,
      hub_loop_max_ms: lag.maxMs,
      hub_loop_p99_ms: lag.p99Ms,
      hub_loop_p50_ms: lag.p50Ms,
      hub_cpu_ms: hubCpuMs,
      health_probes: health.length,
      health_errors: probes.errors,
      health_p50_ms: health.length ? pct(health, 50) : NaN,
      health_p99_ms: health.length ? pct(health, 99) : NaN,
      health_max_ms: health.length ? Math.max(...health) : NaN,
      idle_health_p50_ms: idle.length ? pct(idle, 50) : NaN,
      idle_health_p99_ms: idle.length ? pct(idle, 99) : NaN,
      prober_loop_max_ms: probes.ownLoopMaxMs,
      statuses,
      request_errors: requestErrors,
      /** Client-side time of the slowest cases (which includes waiting behind another case's stall). */
      slowest: costs.slowest(5),
      targets: HOSTILE_TARGETS,
    };
  } finally {
    await prober?.stop();
    await hub?.stop();
    await router?.stop();
  }
}

export type HostileLoadResult = Awaited<ReturnType<typeof benchHostileLoad>>;

export function formatHostileLoad(r: HostileLoadResult): string {
  const f = (x: number) => x.toFixed(1);
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  return (
    `hostile load (${r.cases} fuzz bodies with hostile model output, ${r.concurrency} concurrent; hub, router and a /health prober every ${r.probe_interval_ms} ms in their own processes): ` +
    `${f(r.cases_per_s)} cases/s (${(r.elapsed_ms / 1000).toFixed(1)} s, hub CPU ${(r.hub_cpu_ms / 1000).toFixed(1)} s, ${r.request_errors} request errors); ` +
    `/health p50 ${f(r.health_p50_ms)} / p99 ${f(r.health_p99_ms)} / max ${f(r.health_max_ms)} ms over ${r.health_probes} probes (${r.health_errors} failed; prober's own loop max ${f(r.prober_loop_max_ms)} ms; idle hub p50 ${f(r.idle_health_p50_ms)} / p99 ${f(r.idle_health_p99_ms)} ms); ` +
    `hub event loop p50 ${f(r.hub_loop_p50_ms)} / p99 ${f(r.hub_loop_p99_ms)} ms (10 ms sampling)\n` +
    `  targets: hub event-loop stall max ${f(r.hub_loop_max_ms)} ms (target ≤ ${r.targets.hubLoopMaxMs}: ${verdict(r.hub_loop_max_ms <= r.targets.hubLoopMaxMs)}); ` +
    `/health p99 ${f(r.health_p99_ms)} ms (target ≤ ${r.targets.healthP99Ms}: ${verdict(r.health_p99_ms <= r.targets.healthP99Ms)})\n` +
    `  slowest cases (client-side, waiting included): ${r.slowest.map((s) => `${s.id} [${s.category}] ${s.ms} ms (plan ${s.plan})`).join(', ')}`
  );
}

export async function runHostileLoadBench(): Promise<HostileLoadResult> {
  const r = await benchHostileLoad();
  writeResult('hostile-load', r);
  return r;
}

if (require.main === module) runAsMain('hostile load', runHostileLoadBench, formatHostileLoad);
