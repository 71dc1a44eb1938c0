/**
 * Concurrent staged streams: the largest number of single-12b-bare streams (stream: true) the hub holds at
 * once with zero lost frames (every stream carries answer_done, indepth_pending, indepth_done and ends with
 * done) and no stall (no silence longer than 2× the router pace between the request, the response headers
 * and each following event), stepping 64, 128, 256, 512 and stopping at the first failure. The streams of
 * a step are opened evenly over RAMP_MS (shorter than a stream's life, so all of them are open together).
 * The router (its own process) answers every model call after PACE_MS; the hub (its own process) may run
 * 512 router calls at once with a queue of 1024. Baseline: the same number of streams straight to the
 * router (the hub's Answer request, streamed as two deltas PACE_MS apart), opened and judged the same way.
 * Writes bench/results/concurrent-streams.json.
 */
import { Pool } from 'undici';
import { MARK } from '../test/support/checkers';
import { ANSWER, MODEL, productRequest, productScripts } from './support/product-fixtures';
import { runAsMain, writeResult } from './support/results';
import { spawnHub, type SpawnedHub } from './support/spawn-hub';
import { spawnFakeRouter } from './support/spawn-router';
import { pct, timedStream, type TimedStream } from './support/timed-stream';

const PACE_MS = 1000;
const RAMP_MS = 1000;
const STALL_MS = 2 * PACE_MS;
const STEPS = [64, 128, 256, 512];
const RECORDS = 20;
const PATH = '/v1/chat/completions';
const STAGED = ['answer_done', 'indepth_pending', 'indepth_done', 'done'];
/** role delta, the content delta, finish chunk, [DONE] */
const DIRECT_FRAMES = 4;

interface StepResult {
  streams: number;
  held: boolean;
  lost: number;
  stalled: number;
  max_gap_ms: number;
  p99_gap_ms: number;
  /** Slowest response headers (the first thing a ChartSearchAI client waits for). */
  max_headers_ms: number;
  wall_ms: number;
}

/** Longest silence a client saw: request → headers → each frame. */
function gaps(s: TimedStream): number[] {
  const times = [0, s.headersMs, ...s.frames.map((f) => f.atMs)];
  return times.slice(1).map((t, i) => t - times[i]);
}

async function step(pool: Pool, body: unknown, n: number, complete: (s: TimedStream) => boolean, rampMs = RAMP_MS): Promise<StepResult> {
  const t0 = performance.now();
  const open = (i: number) => new Promise<void>((r) => setTimeout(r, (i * rampMs) / n)).then(() => timedStream(pool, PATH, body));
  const streams = await Promise.all(Array.from({ length: n }, (_, i) => open(i)));
  const wall = performance.now() - t0;
  const lost = streams.filter((s) => s.status !== 200 || s.error !== undefined || !complete(s)).length;
  const maxGaps = streams.map((s) => Math.max(...gaps(s)));
  const stalled = maxGaps.filter((g) => g > STALL_MS).length;
  return { streams: n, held: lost === 0 && stalled === 0, lost, stalled, max_gap_ms: Math.max(...maxGaps), p99_gap_ms: pct(maxGaps, 99), max_headers_ms: Math.max(...streams.map((s) => s.headersMs)), wall_ms: wall };
}

const stagedComplete = (s: TimedStream) => s.frames.map((f) => f.name).join() === STAGED.join();
const directComplete = (s: TimedStream) => s.frames.length === DIRECT_FRAMES && s.frames.at(-1)?.name === '[DONE]';

async function waitIdle(hub: SpawnedHub, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while ((await hub.counters()).activeTurns > 0) {
    if (Date.now() > until) throw new Error('hub turns still running after the step');
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function benchConcurrentStreams(steps = STEPS) {
  const router = await spawnFakeRouter({ models: [MODEL] }, [
    { match: { stream: true }, chunks: [ANSWER], chunkDelayMs: PACE_MS },
    ...productScripts({ answer: { delayMs: PACE_MS }, inDepth: { delayMs: PACE_MS } }),
  ]);
  let hub: SpawnedHub | undefined;
  const max = Math.max(...steps);
  const direct = new Pool(router.baseUrl, { connections: max });
  let viaHub: Pool | undefined;
  try {
    hub = await spawnHub({ LLM_BASE_URL: router.baseUrl, ROUTER_MAX_CONCURRENCY: '512', ROUTER_MAX_QUEUE: '1024' });
    viaHub = new Pool(hub.url, { connections: max });
    const body = productRequest('single-12b-bare', RECORDS, { stream: true });
    await step(viaHub, body, 8, stagedComplete); // warm-up, and the Answer request for the baseline
    await waitIdle(hub);
    const answerCall = (await router.lastChats(16)).find((c) => !JSON.stringify(c).includes(MARK.inDepth));
    if (!answerCall) throw new Error('no Answer request captured');
    const routerBody = { ...answerCall, stream: true };
    await step(direct, routerBody, 8, directComplete);
    const hubSteps: StepResult[] = [];
    const directSteps: StepResult[] = [];
    for (const n of steps) {
      const h = await step(viaHub, body, n, stagedComplete);
      await waitIdle(hub);
      hubSteps.push(h);
      directSteps.push(await step(direct, routerBody, n, directComplete));
      if (!h.held) break;
    }
    const heldHub = Math.max(0, ...hubSteps.filter((s) => s.held).map((s) => s.streams));
    const heldDirect = Math.max(0, ...directSteps.filter((s) => s.held).map((s) => s.streams));
    return {
      pace_ms: PACE_MS,
      stall_limit_ms: STALL_MS,
      chart_records: RECORDS,
      held_hub: heldHub,
      held_direct: heldDirect,
      ratio_held: heldDirect > 0 ? heldHub / heldDirect : 0,
      hub_steps: hubSteps,
      direct_steps: directSteps,
    };
  } finally {
    await direct.destroy();
    await viaHub?.destroy();
    await hub?.stop();
    await router.stop();
  }
}

export type ConcurrentStreamsResult = Awaited<ReturnType<typeof benchConcurrentStreams>>;

export function formatConcurrentStreams(r: ConcurrentStreamsResult): string {
  const row = (s: StepResult) => `${s.streams} ${s.held ? 'ok' : `FAILED (${s.lost} lost, ${s.stalled} stalled)`}, longest silence ${s.max_gap_ms.toFixed(0)} ms, slowest headers ${s.max_headers_ms.toFixed(0)} ms`;
  return (
    `concurrent streams (single-12b-bare staged, each step opened over ${RAMP_MS} ms, router pace ${r.pace_ms} ms per call, stall limit ${r.stall_limit_ms} ms): ` +
    `hub held ${r.held_hub} [${r.hub_steps.map(row).join('; ')}] vs direct router streams held ${r.held_direct} [${r.direct_steps.map(row).join('; ')}] ` +
    `(ratio ${r.ratio_held.toFixed(2)}x)`
  );
}

export async function runConcurrentStreamsBench(): Promise<ConcurrentStreamsResult> {
  const r = await benchConcurrentStreams();
  writeResult('concurrent-streams', r);
  return r;
}

if (require.main === module) runAsMain('concurrent streams', runConcurrentStreamsBench, formatConcurrentStreams);
