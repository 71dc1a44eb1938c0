/** `npm run bench`: runs every benchmark in sequence; each prints a ratio against a baseline from the same run. */
import { formatAllocation, runAllocationBench } from './allocation';
import { formatConcurrentStreams, runConcurrentStreamsBench } from './concurrent-streams';
import { formatContextSelection, runContextSelectionBench } from './context-selection';
import { formatEmbeddedPrefix, runEmbeddedPrefixBench } from './embedded-prefix';
import { formatEngineCpu, runEngineCpuBench } from './engine-cpu';
import { formatHostileLoad, runHostileLoadBench } from './hostile-load';
import { formatLegOverhead, legTargetRows, runLegOverheadBench } from './leg-overhead';
import { formatMemory, memoryTargetRows, runMemoryBench } from './memory';
import { formatProductCpu, productTargetRows, runProductCpuBench } from './product-cpu';
import { formatKnowledgeSource, runKnowledgeSourceBench } from './knowledge-source';
import { formatQuerystore, runQuerystoreBench } from './querystore';
import { formatStreamLatency, runStreamLatencyBench } from './stream-latency';
import { formatRawGenerateStream, rawGenerateTargetRows, runRawGenerateStreamBench } from './raw-generate-stream';
import { formatTargets, type TargetRow } from './support/targets';

async function main(): Promise<void> {
  const targets: TargetRow[] = [];
  const leg = await runLegOverheadBench();
  targets.push(...legTargetRows(leg));
  process.stdout.write(`${formatLegOverhead(leg)}\n`);
  for (const row of await runContextSelectionBench()) process.stdout.write(`${formatContextSelection(row)}\n`);
  // Ops benchmarks: hub (and router) in child processes, so CPU and RSS are the hub's alone.
  process.stdout.write(`${formatStreamLatency(await runStreamLatencyBench())}\n`);
  const raw = await runRawGenerateStreamBench();
  targets.push(...rawGenerateTargetRows(raw));
  process.stdout.write(`${formatRawGenerateStream(raw)}\n`);
  process.stdout.write(`${formatConcurrentStreams(await runConcurrentStreamsBench())}\n`);
  const memory = await runMemoryBench();
  targets.push(...memoryTargetRows(memory));
  process.stdout.write(`${formatMemory(memory)}\n`);
  const product = await runProductCpuBench();
  targets.push(...productTargetRows(product));
  process.stdout.write(`${formatProductCpu(product)}\n`);
  process.stdout.write(`${formatKnowledgeSource(await runKnowledgeSourceBench())}\n`);
  process.stdout.write(`${formatEngineCpu(await runEngineCpuBench())}\n`);
  process.stdout.write(`${formatAllocation(await runAllocationBench())}\n`);
  process.stdout.write(`${formatHostileLoad(await runHostileLoadBench())}\n`);
  process.stdout.write(`${formatQuerystore(await runQuerystoreBench())}\n`);
  // The embedded llama.cpp engine (in this process): prefix reuse over a checked turn's prompts.
  process.stdout.write(`${formatEmbeddedPrefix(await runEmbeddedPrefixBench())}\n`);
  process.stdout.write(`${formatTargets(targets)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
