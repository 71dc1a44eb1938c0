/**
 * A prober in its own process (so the load of the process that drives a benchmark never shows as the
 * target's latency): GETs argv[2] every argv[3] ms from `{ type: 'start' }` on — open loop, a probe
 * fires on time even while earlier ones wait, as a client arriving at random would — and on
 * `{ type: 'stop' }` waits for the probes in flight and answers with every latency (ms, send → whole
 * body), the failed probes and its own longest event-loop delay since the start. Can be started again.
 * Prints `READY <url>`; stops when its parent goes away.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { request } from 'undici';

export interface ProbeReport {
  type: 'stop';
  latenciesMs: number[];
  errors: number;
  /** This process's own longest loop delay: a large one means the figures are the prober's, not the target's. */
  ownLoopMaxMs: number;
}

const url = process.argv[2];
const everyMs = Number(process.argv[3] ?? 20);
const PROBE_TIMEOUT_MS = 30_000;

const latencies: number[] = [];
const pending = new Set<Promise<void>>();
let errors = 0;
let timer: NodeJS.Timeout | undefined;
const loop = monitorEventLoopDelay({ resolution: 10 });

function probe(): void {
  const t0 = performance.now();
  const p = request(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
    .then(async (res) => {
      await res.body.arrayBuffer();
      if (res.statusCode === 200) latencies.push(performance.now() - t0);
      else errors++;
    })
    .catch(() => {
      errors++;
    })
    .finally(() => pending.delete(p));
  pending.add(p);
}

process.on('message', (msg: { type?: string }) => {
  if (msg?.type === 'start' && !timer) {
    latencies.length = 0;
    errors = 0;
    loop.reset();
    loop.enable();
    timer = setInterval(probe, everyMs);
    process.send?.({ type: 'start' });
  }
  if (msg?.type === 'stop') {
    clearInterval(timer);
    timer = undefined;
    loop.disable();
    void Promise.all(pending).then(() => {
      const report: ProbeReport = { type: 'stop', latenciesMs: latencies, errors, ownLoopMaxMs: loop.max / 1e6 };
      process.send?.(report);
    });
  }
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
process.stdout.write(`READY ${url}\n`);
