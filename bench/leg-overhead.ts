/**
 * Gateway overhead of a low-level Answer leg (issue: "blocking and streaming, zero-delay router,
 * concurrency 1 and 32"): the same chat request sent straight to the fake router and through the hub,
 * router and hub each in their own process (so neither the client's work nor the router's is billed to
 * the hub's event loop). For each mode × concurrency: latency p50/p99 of both, the hub's added p50/p99
 * and the hub handler's own time (Server-Timing `hub;dur`, blocking only). A streamed leg is drained
 * before its first chunk (§3.2), so its latency is measured to the end of the stream.
 * Second baseline: the router body sent through a do-nothing pass-through proxy (support/passthrough-proxy.ts,
 * its own process, undici upstream), i.e. what one extra HTTP hop costs on this machine.
 * Writes bench/results/leg-overhead.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { loadConfig } from '../server/config';
import { startHub } from '../server/main';
import { FakeRouter } from '../test/support/fake-router';
import { procCpuMs, REGISTER_TS, spawnBenchChild } from './support/child';
import { runAsMain, writeResult } from './support/results';
import { atLeast, atMost, OVERHEAD_TARGETS, type TargetRow } from './support/targets';
import { spawnHub } from './support/spawn-hub';
import { BENCH_TEMPLATE, spawnFakeRouter } from './support/spawn-router';

const ROOT = path.resolve(__dirname, '..');
export const CHART = ['Patient records (most recent first):', ...Array.from({ length: 40 }, (_, i) => `[${i + 1}] (2026-0${1 + (i % 9)}-1${i % 10}) Finding — Weight (kg): ${60 + i} kg`)].join('\n');
export const ANSWER = JSON.stringify({ answer: 'Weight is 60 kg [1].', citations: [1], blocks: [] });

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const MODES = ['blocking', 'streaming'] as const;
/**
 * Legs each target (router, hub, proxy) serves before anything is timed, per concurrency. The hub runs far
 * more code than the proxy, and V8 was still tiering it up after a few hundred legs: with 200, the hub's
 * first timed round at 32 concurrent ran at 0.39 × the proxy and its later rounds at 0.48 ×.
 */
const WARMUP = Number(process.env.BENCH_LEG_WARMUP ?? 1000);
/**
 * The timed legs are sent in rounds that alternate router, hub and proxy, so a change in the machine's
 * speed during the run (this VM's proxy figure moved 933 → 1,395 req/s between runs of one day) falls on
 * all three alike; each target's latencies and time are summed over its rounds.
 */
const ROUNDS = Number(process.env.BENCH_LEG_ROUNDS ?? 4);
const CONCURRENCY = [1, 32] as const;
/**
 * BENCH_LEG_BACKENDS=1: the hub reaches the same router through a one-entry LLM_BACKENDS file (issue #32)
 * instead of LLM_BASE_URL, so a run of each shows what the map costs a leg (results: leg-overhead-backends.json).
 */
const VIA_MAP = process.env.BENCH_LEG_BACKENDS === '1';
export const HUB_MODEL = 'answer:gemma-4-12b@synthesis-chartsearchai~off~temp0';

interface Timed {
  latencies: number[];
  /** Wall time of the whole run (ms): requests per second = n / elapsed. */
  elapsedMs: number;
  /** Server-Timing `hub;dur` per response, when present. */
  hubSelf: number[];
}

/** Sends `n` requests, `concurrency` at a time; each latency runs from sending to the last body byte. */
async function timeRequests(pool: Pool, body: unknown, n: number, concurrency: number): Promise<Timed> {
  const payload = JSON.stringify(body);
  const out: Timed = { latencies: [], elapsedMs: 0, hubSelf: [] };
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const t0 = performance.now();
      const res = await pool.request({ method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, body: payload });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}: ${text.slice(0, 200)}`);
      out.latencies.push(performance.now() - t0);
      const timing = /hub;dur=([\d.]+)/.exec(String(res.headers['server-timing'] ?? ''));
      if (timing) out.hubSelf.push(Number(timing[1]));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  out.elapsedMs = performance.now() - started;
  out.latencies.sort((a, b) => a - b);
  out.hubSelf.sort((a, b) => a - b);
  return out;
}

/** One target's rounds as one run: latencies and hub timings together, elapsed time summed. */
function combine(runs: Timed[]): Timed {
  const out: Timed = { latencies: runs.flatMap((r) => r.latencies), elapsedMs: runs.reduce((t, r) => t + r.elapsedMs, 0), hubSelf: runs.flatMap((r) => r.hubSelf) };
  out.latencies.sort((a, b) => a - b);
  out.hubSelf.sort((a, b) => a - b);
  return out;
}

/** The chat request the hub sends the router for `hubBody`, captured once from an in-process fake router. */
export async function capturedRouterRequest(hubBody: unknown): Promise<Record<string, unknown>> {
  const recorder = new FakeRouter({ models: ['gemma-4-12b'], defaultReply: { content: ANSWER }, template: BENCH_TEMPLATE });
  await recorder.start();
  const hub = await startHub(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', LLM_BASE_URL: recorder.baseUrl, KNOWLEDGE_SOURCE: 'off', KNOWLEDGE_DB_PATH: ':memory:' }, ROOT));
  try {
    const pool = new Pool(hub.url, { connections: 1 });
    await timeRequests(pool, hubBody, 1, 1);
    await pool.close();
    return recorder.chatRequests()[0].body as Record<string, unknown>;
  } finally {
    await hub.close();
    await recorder.stop();
  }
}

export interface LegOverheadRow {
  mode: (typeof MODES)[number];
  concurrency: number;
  requests: number;
  direct_p50_ms: number;
  direct_p99_ms: number;
  hub_p50_ms: number;
  hub_p99_ms: number;
  added_p50_ms: number;
  added_p99_ms: number;
  ratio_p50: number;
  /** Hub handler time excluding router calls (Server-Timing); null for streams (no trailer). */
  hub_handler_p50_ms: number | null;
  hub_handler_p99_ms: number | null;
  /** The router body through a do-nothing proxy: what one extra hop adds (blocking only). */
  proxy_p50_ms: number | null;
  proxy_added_p50_ms: number | null;
  proxy_added_p99_ms: number | null;
  /** CPU time of the hub process per request (user + system), and of the do-nothing proxy per request. */
  hub_cpu_per_request_ms: number;
  proxy_cpu_per_request_ms: number | null;
  /** Requests per second through the hub, through the proxy, and straight to the router. */
  hub_rps: number;
  proxy_rps: number | null;
  direct_rps: number;
}

/** Decision 29's leg targets against the proxy measured in the same run. */
export function legTargetRows(rows: LegOverheadRow[]): TargetRow[] {
  const c1 = rows.find((r) => r.mode === 'blocking' && r.concurrency === 1);
  const c32 = rows.find((r) => r.mode === 'blocking' && r.concurrency === 32);
  const out: TargetRow[] = [];
  if (c1?.proxy_added_p50_ms != null) {
    const limit = c1.proxy_added_p50_ms + OVERHEAD_TARGETS.legAddedOverProxyMs;
    out.push(atMost(`blocking leg added p50 (proxy's + ${OVERHEAD_TARGETS.legAddedOverProxyMs})`, c1.added_p50_ms, limit, 'ms', `proxy adds ${c1.proxy_added_p50_ms.toFixed(3)} ms`));
  }
  if (c32?.proxy_rps) {
    out.push(atLeast('32 concurrent legs, share of the proxy\'s throughput', c32.hub_rps / c32.proxy_rps, OVERHEAD_TARGETS.c32ThroughputShareOfProxy, '×', `hub ${c32.hub_rps.toFixed(0)} vs proxy ${c32.proxy_rps.toFixed(0)} req/s`));
  }
  return out;
}

/** An LLM_BACKENDS file sending the leg's model to `baseUrl` (removed at exit). */
function oneEntryMap(baseUrl: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-bench-backends-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'backends.yaml');
  fs.writeFileSync(file, `models:\n  gemma-4-12b: { base_url: "${baseUrl}" }\n`);
  return file;
}

export async function benchLegOverhead(requests = 400): Promise<LegOverheadRow[]> {
  const messages = [{ role: 'user', content: CHART }, { role: 'user', content: 'What is the latest weight?' }];
  // The baseline sends the router exactly what the hub sends it (temporal facts, prompt, sampling),
  // so both sides cost the router the same and the difference is the hub's own work.
  const routerBody = await capturedRouterRequest({ model: HUB_MODEL, messages });
  const router = await spawnFakeRouter({ models: ['gemma-4-12b'], defaultReply: { content: ANSWER } });
  const hub = await spawnHub({ ...(VIA_MAP ? { LLM_BACKENDS: oneEntryMap(router.baseUrl) } : { LLM_BASE_URL: router.baseUrl }), ROUTER_MAX_CONCURRENCY: '64' });
  const proxy = await spawnBenchChild(['-r', REGISTER_TS, path.join(__dirname, 'support/passthrough-proxy.ts'), router.baseUrl]);
  const rows: LegOverheadRow[] = [];
  try {
    for (const mode of MODES) {
      const stream = mode === 'streaming';
      const hubBody = { model: HUB_MODEL, messages, stream };
      const direct = { ...routerBody, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) };
      for (const concurrency of CONCURRENCY) {
        // Timed legs per target: enough at 32 concurrent for the throughput share to be more than a second's work.
        let n = concurrency > 1 ? requests * 4 : requests;
        const directPool = new Pool(router.baseUrl, { connections: concurrency });
        const hubPool = new Pool(hub.url, { connections: concurrency });
        const proxyPool = new Pool(proxy.url, { connections: concurrency });
        try {
          // Warm-up to steady state, every target alike (see WARMUP).
          await timeRequests(directPool, direct, WARMUP, concurrency);
          await timeRequests(hubPool, hubBody, WARMUP, concurrency);
          // The proxy buffers whole replies, so it stands in for the blocking hop only.
          if (!stream) await timeRequests(proxyPool, direct, WARMUP, concurrency);
          const perRound = Math.ceil(n / ROUNDS);
          const runs = { direct: [] as Timed[], hub: [] as Timed[], proxy: [] as Timed[] };
          let hubCpuMs = 0;
          let proxyCpuMs = 0;
          for (let round = 0; round < ROUNDS; round++) {
            runs.direct.push(await timeRequests(directPool, direct, perRound, concurrency));
            const hubCpu0 = (await hub.usage()).cpuUs;
            runs.hub.push(await timeRequests(hubPool, hubBody, perRound, concurrency));
            hubCpuMs += ((await hub.usage()).cpuUs - hubCpu0) / 1000;
            if (!stream) {
              const proxyCpu0 = procCpuMs(proxy.pid);
              runs.proxy.push(await timeRequests(proxyPool, direct, perRound, concurrency));
              proxyCpuMs += procCpuMs(proxy.pid) - proxyCpu0;
            }
          }
          n = perRound * ROUNDS;
          const d = combine(runs.direct);
          const h = combine(runs.hub);
          const p: Timed | null = stream ? null : combine(runs.proxy);
          rows.push({
            mode,
            concurrency,
            requests: n,
            direct_p50_ms: pct(d.latencies, 50),
            direct_p99_ms: pct(d.latencies, 99),
            hub_p50_ms: pct(h.latencies, 50),
            hub_p99_ms: pct(h.latencies, 99),
            added_p50_ms: pct(h.latencies, 50) - pct(d.latencies, 50),
            added_p99_ms: pct(h.latencies, 99) - pct(d.latencies, 99),
            ratio_p50: pct(h.latencies, 50) / pct(d.latencies, 50),
            hub_handler_p50_ms: h.hubSelf.length ? pct(h.hubSelf, 50) : null,
            hub_handler_p99_ms: h.hubSelf.length ? pct(h.hubSelf, 99) : null,
            proxy_p50_ms: p ? pct(p.latencies, 50) : null,
            proxy_added_p50_ms: p ? pct(p.latencies, 50) - pct(d.latencies, 50) : null,
            proxy_added_p99_ms: p ? pct(p.latencies, 99) - pct(d.latencies, 99) : null,
            hub_cpu_per_request_ms: hubCpuMs / n,
            proxy_cpu_per_request_ms: p ? proxyCpuMs / n : null,
            hub_rps: (n * 1000) / h.elapsedMs,
            proxy_rps: p ? (n * 1000) / p.elapsedMs : null,
            direct_rps: (n * 1000) / d.elapsedMs,
          });
        } finally {
          await directPool.close();
          await hubPool.close();
          await proxyPool.close();
        }
      }
    }
    return rows;
  } finally {
    await proxy.stop();
    await hub.stop();
    await router.stop();
  }
}

export function formatLegOverhead(rows: LegOverheadRow[]): string {
  const f = (x: number) => x.toFixed(3);
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const row = (r: LegOverheadRow) =>
    `${r.mode} c${r.concurrency}: hub p50 ${f(r.hub_p50_ms)} / p99 ${f(r.hub_p99_ms)} ms vs router ${f(r.direct_p50_ms)} / ${f(r.direct_p99_ms)} ms → added p50 ${f(r.added_p50_ms)}, p99 ${f(r.added_p99_ms)} ms (ratio ${r.ratio_p50.toFixed(2)}x)` +
    (r.hub_handler_p50_ms === null ? '' : `, hub handler p50 ${f(r.hub_handler_p50_ms)} / p99 ${f(r.hub_handler_p99_ms ?? NaN)} ms`) +
    `, hub CPU ${f(r.hub_cpu_per_request_ms)} ms/request, ${r.hub_rps.toFixed(0)} req/s (router ${r.direct_rps.toFixed(0)})` +
    (r.proxy_added_p50_ms === null ? '' : `; a do-nothing proxy adds p50 ${f(r.proxy_added_p50_ms)}, p99 ${f(r.proxy_added_p99_ms ?? NaN)} ms, CPU ${f(r.proxy_cpu_per_request_ms ?? NaN)} ms/request, ${(r.proxy_rps ?? 0).toFixed(0)} req/s`);
  const c1 = rows.find((r) => r.mode === 'blocking' && r.concurrency === 1);
  const targets = [
    ...legTargetRows(rows).map((t) => `${t.target}: ${t.figure} (${t.baseline}): ${verdict(t.holds)}`),
    c1 ? `hub CPU per leg ${f(c1.hub_cpu_per_request_ms)} ms (proxy ${f(c1.proxy_cpu_per_request_ms ?? NaN)}, ratio ${(c1.hub_cpu_per_request_ms / (c1.proxy_cpu_per_request_ms ?? NaN)).toFixed(2)}×)` : '',
  ].filter(Boolean);
  return `leg overhead${VIA_MAP ? ' through a one-entry LLM_BACKENDS map' : ''} (Answer leg, zero-delay router, ${WARMUP} warm-up legs per target, then ${rows.map((r) => `${r.mode} c${r.concurrency} ${r.requests}`).join(', ')} timed legs in ${ROUNDS} rounds alternating router, hub and proxy; hub and router in their own processes): ${rows.map(row).join('; ')}\n  targets: ${targets.join('; ')}`;
}

export async function runLegOverheadBench(): Promise<LegOverheadRow[]> {
  const rows = await benchLegOverhead();
  writeResult(VIA_MAP ? 'leg-overhead-backends' : 'leg-overhead', { rows });
  return rows;
}

if (require.main === module) runAsMain('leg overhead', runLegOverheadBench, formatLegOverhead);
