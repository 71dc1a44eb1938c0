/**
 * Hub resident memory (VmRSS of the hub's own process, read from /proc): idle after a few warm-up turns,
 * while OPEN staged single-12b-bare streams are held open (the router answers the Answer call only after
 * HOLD_MS, so the streams sit on heartbeats), and after they have all finished. Each phase samples RSS
 * every SAMPLE_MS and reports min/median/max of the last PLATEAU samples, so a figure is a plateau, not one
 * reading; after the streams closed, once more after a forced full GC (garbage vs live memory).
 * The streams open in two halves with a plateau after each, so besides the growth from idle
 * ((open − idle) / OPEN × 1,000, which includes one-time growth such as V8's young generation
 * expanding under load) the marginal cost of a stream is measured: (open − half) / (OPEN / 2) × 1,000.
 * Baseline: an idle bare Node process (same IPC channel) sampled the same way in the same run.
 * Writes bench/results/memory.json.
 */
import { Pool } from 'undici';
import { spawnBareNode, type BenchChild } from './support/child';
import { MODEL, productRequest, productScripts, QUESTION } from './support/product-fixtures';
import { runAsMain, writeResult } from './support/results';
import { atMost, MEMORY_TARGETS, type TargetRow } from './support/targets';
import { spawnHub, type SpawnedHub } from './support/spawn-hub';
import { spawnFakeRouter } from './support/spawn-router';
import { median, timedStream, type TimedStream } from './support/timed-stream';

const OPEN = 256;
const HOLD_MS = 15_000;
const SAMPLE_MS = 100;
const SAMPLES = 30;
const PLATEAU = 20;
const RECORDS = 20;
const WARMUP_MARK = 'warm-up turn';
const MB = 1024 * 1024;

interface Plateau {
  min_mb: number;
  median_mb: number;
  max_mb: number;
  samples: number;
  /** V8 heap in use (process.memoryUsage, asked over IPC), median of the same samples: live objects vs retained pages. */
  heap_used_median_mb?: number;
  /** V8 heap reserved and memory outside it (Buffers), medians of the same samples. */
  heap_total_median_mb?: number;
  external_median_mb?: number;
}

async function plateau(child: BenchChild, opts: { heap?: boolean } = {}): Promise<Plateau> {
  const rss: number[] = [];
  const heap: number[] = [];
  const heapTotal: number[] = [];
  const external: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    rss.push(child.vmRss() / MB);
    if (opts.heap) {
      const u = await child.usage();
      heap.push(u.heapUsedBytes / MB);
      heapTotal.push(u.heapTotalBytes / MB);
      external.push(u.externalBytes / MB);
    }
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
  }
  const last = rss.slice(-PLATEAU);
  const out: Plateau = { min_mb: Math.min(...last), median_mb: median(last), max_mb: Math.max(...last), samples: last.length };
  if (opts.heap) {
    out.heap_used_median_mb = median(heap.slice(-PLATEAU));
    out.heap_total_median_mb = median(heapTotal.slice(-PLATEAU));
    out.external_median_mb = median(external.slice(-PLATEAU));
  }
  return out;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`memory bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function benchMemory() {
  const bare = await spawnBareNode();
  let bareIdle: Plateau;
  try {
    bareIdle = await plateau(bare);
  } finally {
    await bare.stop();
  }
  // Warm-up turns (their question carries WARMUP_MARK) are answered at once; the held streams' Answer
  // call waits HOLD_MS; In-Depth is answered at once.
  const scripts = productScripts();
  scripts.splice(scripts.length - 1, 0, { ...scripts[scripts.length - 1], match: { contains: WARMUP_MARK } });
  scripts[scripts.length - 1] = { ...scripts[scripts.length - 1], delayMs: HOLD_MS };
  const router = await spawnFakeRouter({ models: [MODEL] }, scripts);
  let hub: SpawnedHub | undefined;
  let pool: Pool | undefined;
  try {
    hub = await spawnHub({ LLM_BASE_URL: router.baseUrl, ROUTER_MAX_CONCURRENCY: '512', ROUTER_MAX_QUEUE: '1024' }, { exposeGc: true });
    pool = new Pool(hub.url, { connections: OPEN });
    const started = await plateau(hub, { heap: true });
    const warm = productRequest('single-12b-bare', RECORDS, { stream: true });
    (warm.messages as Array<{ content: string }>)[1].content = `${QUESTION} (${WARMUP_MARK})`;
    for (let i = 0; i < 4; i++) await Promise.all(Array.from({ length: 8 }, () => timedStream(pool!, '/v1/chat/completions', warm)));
    const idle = await plateau(hub, { heap: true });
    const held = productRequest('single-12b-bare', RECORDS, { stream: true });
    const opened = performance.now();
    const openHalf = () => Array.from({ length: OPEN / 2 }, () => timedStream(pool!, '/v1/chat/completions', held));
    const inFlight = (n: number) => until(`${n} streams to reach the router`, async () => (await hub!.counters()).routerInFlight >= n, 4_000);
    // Every stream is open and waiting on its Answer call at the router.
    const streams = openHalf();
    await inFlight(OPEN / 2);
    const half = await plateau(hub, { heap: true });
    streams.push(...openHalf());
    await inFlight(OPEN);
    const allOpenMs = performance.now() - opened;
    const open = await plateau(hub, { heap: true });
    const heldFor = performance.now() - opened;
    const done: TimedStream[] = await Promise.all(streams);
    const incomplete = done.filter((s) => s.frames.at(-1)?.name !== 'done').length;
    if (heldFor > HOLD_MS) throw new Error('memory bench: the streams finished before the open phase was sampled');
    await until('the hub to go idle', async () => (await hub!.counters()).activeTurns === 0, 10_000);
    const after = await plateau(hub, { heap: true });
    // Then one forced full GC: what stays is live (a leak) or pages V8/malloc keep (RSS above heap).
    await hub.gc();
    const afterGc = await plateau(hub, { heap: true });
    const perThousand = ((open.median_mb - idle.median_mb) / OPEN) * 1000;
    const marginalPerThousand = ((open.median_mb - half.median_mb) / (OPEN / 2)) * 1000;
    const marginalKb = (field: 'heap_used_median_mb' | 'heap_total_median_mb' | 'external_median_mb') => (((open[field] ?? 0) - (half[field] ?? 0)) / (OPEN / 2)) * 1024;
    return {
      open_streams: OPEN,
      sample_interval_ms: SAMPLE_MS,
      bare_node_idle: bareIdle,
      hub_started: started,
      hub_idle: idle,
      hub_half_open: half,
      hub_open: open,
      hub_after_close: after,
      hub_after_close_and_gc: afterGc,
      incomplete_streams: incomplete,
      all_open_after_ms: allOpenMs,
      extra_mb_per_1000_open_streams: perThousand,
      marginal_mb_per_1000_open_streams: marginalPerThousand,
      /** Where one more open stream's memory goes (KB): V8 heap used and reserved, and Buffers outside the heap. */
      marginal_kb_per_stream: { rss: marginalPerThousand * 1.024, heap_used: marginalKb('heap_used_median_mb'), heap_reserved: marginalKb('heap_total_median_mb'), external: marginalKb('external_median_mb') },
      ratio_idle_vs_bare_node: idle.median_mb / bareIdle.median_mb,
    };
  } finally {
    await pool?.destroy();
    await hub?.stop();
    await router.stop();
  }
}

export type MemoryResult = Awaited<ReturnType<typeof benchMemory>>;

/** Decision 28's memory targets (and issue 11's after warm-up), with bare Node from the same run beside them. */
export function memoryTargetRows(r: MemoryResult): TargetRow[] {
  const bare = `bare Node ${r.bare_node_idle.median_mb.toFixed(1)} MiB`;
  return [
    atMost('RSS just started, idle', r.hub_started.median_mb, MEMORY_TARGETS.idleMb, 'MiB', bare),
    atMost('RSS idle after warm-up turns', r.hub_idle.median_mb, MEMORY_TARGETS.warmMb, 'MiB', bare),
    atMost(`RSS with ${r.open_streams / 2} staged streams open`, r.hub_half_open.median_mb, MEMORY_TARGETS.open128Mb, 'MiB', bare),
  ];
}

export function formatMemory(r: MemoryResult): string {
  const p = (x: Plateau) =>
    `${x.median_mb.toFixed(1)} MB (min ${x.min_mb.toFixed(1)}, max ${x.max_mb.toFixed(1)}${x.heap_used_median_mb === undefined ? '' : `; heap used ${x.heap_used_median_mb.toFixed(1)} MB`})`;
  const targets = `targets: ${memoryTargetRows(r).map((t) => `${t.target}: ${t.figure} ${t.holds ? 'met' : 'MISSED'}`).join('; ')}`;
  return (
    `memory (hub RSS in its own process, median of the last ${r.hub_idle.samples} samples every ${r.sample_interval_ms} ms): just started ${p(r.hub_started)}; idle after warm-up ${p(r.hub_idle)} vs bare Node ${p(r.bare_node_idle)} ` +
    `(ratio ${r.ratio_idle_vs_bare_node.toFixed(2)}x); ${r.open_streams / 2} staged streams open ${p(r.hub_half_open)}; ${r.open_streams} open ${p(r.hub_open)}; after they closed ${p(r.hub_after_close)}; ` +
    `after a forced GC ${p(r.hub_after_close_and_gc)}; per 1,000 open streams: ${r.marginal_mb_per_1000_open_streams.toFixed(1)} MB marginal (${r.open_streams / 2} → ${r.open_streams}), ` +
    `${r.extra_mb_per_1000_open_streams.toFixed(1)} MB from idle; one more stream: ${r.marginal_kb_per_stream.rss.toFixed(0)} KB RSS = ` +
    `V8 heap reserved ${r.marginal_kb_per_stream.heap_reserved.toFixed(0)} KB (used ${r.marginal_kb_per_stream.heap_used.toFixed(0)} KB) + Buffers ${r.marginal_kb_per_stream.external.toFixed(0)} KB + rest` +
    (r.incomplete_streams > 0 ? `; ${r.incomplete_streams} streams did not end with done` : '') +
    `\n  ${targets}`
  );
}

export async function runMemoryBench(): Promise<MemoryResult> {
  const r = await benchMemory();
  writeResult('memory', r);
  return r;
}

if (require.main === module) runAsMain('memory', runMemoryBench, formatMemory);
