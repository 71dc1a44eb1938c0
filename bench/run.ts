/** `npm run bench`: runs every benchmark in sequence; each prints a ratio against a baseline from the same run. */
import { formatAllocation, runAllocationBench } from './allocation';
import { formatConcurrentStreams, runConcurrentStreamsBench } from './concurrent-streams';
import { formatContextSelection, runContextSelectionBench } from './context-selection';
import { formatEmbeddedPrefix, runEmbeddedPrefixBench } from './embedded-prefix';
import { formatEngineCpu, runEngineCpuBench } from './engine-cpu';
import { formatHostileLoad, runHostileLoadBench } from './hostile-load';
import { formatLegOverhead, runLegOverheadBench } from './leg-overhead';
import { formatMemory, runMemoryBench } from './memory';
import { formatProductCpu, runProductCpuBench } from './product-cpu';
import { formatKnowledgeSource, runKnowledgeSourceBench } from './knowledge-source';
import { formatQuerystore, runQuerystoreBench } from './querystore';
import { formatStreamLatency, runStreamLatencyBench } from './stream-latency';
import { formatRawGenerateStream, runRawGenerateStreamBench } from './raw-generate-stream';

async function main(): Promise<void> {
  process.stdout.write(`${formatLegOverhead(await runLegOverheadBench())}\n`);
  for (const row of await runContextSelectionBench()) process.stdout.write(`${formatContextSelection(row)}\n`);
  // Ops benchmarks: hub (and router) in child processes, so CPU and RSS are the hub's alone.
  process.stdout.write(`${formatStreamLatency(await runStreamLatencyBench())}\n`);
  process.stdout.write(`${formatRawGenerateStream(await runRawGenerateStreamBench())}\n`);
  process.stdout.write(`${formatConcurrentStreams(await runConcurrentStreamsBench())}\n`);
  process.stdout.write(`${formatMemory(await runMemoryBench())}\n`);
  process.stdout.write(`${formatProductCpu(await runProductCpuBench())}\n`);
  process.stdout.write(`${formatKnowledgeSource(await runKnowledgeSourceBench())}\n`);
  process.stdout.write(`${formatEngineCpu(await runEngineCpuBench())}\n`);
  process.stdout.write(`${formatAllocation(await runAllocationBench())}\n`);
  process.stdout.write(`${formatHostileLoad(await runHostileLoadBench())}\n`);
  process.stdout.write(`${formatQuerystore(await runQuerystoreBench())}\n`);
  // The embedded llama.cpp engine (in this process): prefix reuse over a checked turn's prompts.
  process.stdout.write(`${formatEmbeddedPrefix(await runEmbeddedPrefixBench())}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
