/** `npm run bench`: runs every benchmark in sequence; each prints a ratio against a baseline from the same run. */
import { formatConcurrentStreams, runConcurrentStreamsBench } from './concurrent-streams';
import { formatContextSelection, runContextSelectionBench } from './context-selection';
import { formatEngineCpu, runEngineCpuBench } from './engine-cpu';
import { benchLegOverhead } from './leg-overhead';
import { formatMemory, runMemoryBench } from './memory';
import { formatProductCpu, runProductCpuBench } from './product-cpu';
import { formatStreamLatency, runStreamLatencyBench } from './stream-latency';

async function main(): Promise<void> {
  const r = await benchLegOverhead();
  process.stdout.write(
    `leg overhead: hub p50 ${r.hub_p50_ms.toFixed(3)} ms vs router ${r.direct_p50_ms.toFixed(3)} ms → added p50 ${r.added_p50_ms.toFixed(3)} ms, p99 ${r.added_p99_ms.toFixed(3)} ms (ratio ${r.ratio_p50.toFixed(2)}x); hub handler p50 ${r.hub_handler_p50_ms.toFixed(3)} ms\n`,
  );
  for (const row of await runContextSelectionBench()) process.stdout.write(`${formatContextSelection(row)}\n`);
  // Ops benchmarks: hub (and router) in child processes, so CPU and RSS are the hub's alone.
  process.stdout.write(`${formatStreamLatency(await runStreamLatencyBench())}\n`);
  process.stdout.write(`${formatConcurrentStreams(await runConcurrentStreamsBench())}\n`);
  process.stdout.write(`${formatMemory(await runMemoryBench())}\n`);
  process.stdout.write(`${formatProductCpu(await runProductCpuBench())}\n`);
  process.stdout.write(`${formatEngineCpu(await runEngineCpuBench())}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
