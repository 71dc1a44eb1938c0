/**
 * A hub in its own process for benchmarks that need its CPU time or resident memory alone: configured
 * from the environment like production (loadConfig), prints `READY <url>`, answers `{ type: 'usage' }`
 * (and `{ type: 'gc' }` when started with --expose-gc), `{ type: 'prototypes' }` and `{ type: 'alloc' }` over IPC, and closes on SIGTERM
 * or when the parent goes away (a hub that does not close within 10 s is ended, so it never outlives its parent).
 */
import { loadConfig } from '../../server/config';
import { startHub } from '../../server/main';
import { answerAllocation } from './alloc-sampler';
import { answerUsage, ROOT } from './child';

async function main(): Promise<void> {
  // Compiled into a temporary directory by spawn-hub.ts: profiles and prompts are read from the repository.
  const hub = await startHub(loadConfig(process.env, process.env.BENCH_HUB_ROOT ?? ROOT));
  process.stdout.write(`READY ${hub.url}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(0), 10_000).unref();
    // process.exit() (not a natural exit) would skip --cpu-prof output, so let the loop drain instead.
    void hub.close().finally(() => {
      if (process.connected) process.disconnect();
      setTimeout(() => process.exit(0), 2000).unref();
    });
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
  process.on('message', (msg: { type?: string; rounds?: number; action?: string }) => {
    if (msg?.type === 'usage') {
      const slots = hub.routerSlots();
      process.send?.(answerUsage({ activeTurns: hub.activeTurns(), startedTurns: hub.startedTurns(), routerInFlight: slots.inFlight, routerQueued: slots.queued }));
    }
    // Only with --expose-gc (spawnHub({ exposeGc: true })): tells garbage apart from live memory. `rounds`
    // collections, each followed by a turn of the loop (finalisers, closed sockets), then the heap in use.
    if (msg?.type === 'gc') void collect(msg.rounds ?? 1).then((collected) => process.send?.({ type: 'gc', collected, heapUsedBytes: process.memoryUsage().heapUsed }));
    // What the hub allocates between a start and a stop (bench/allocation.ts).
    if (msg?.type === 'alloc') void answerAllocation(msg.action).then((report) => process.send?.(report));
    // What hostile input may have added to the shared prototypes of this process.
    if (msg?.type === 'prototypes') {
      process.send?.({ type: 'prototypes', objectKeys: Object.getOwnPropertyNames(Object.prototype).sort(), polluted: ({} as Record<string, unknown>).polluted !== undefined });
    }
  });
}

async function collect(rounds: number): Promise<boolean> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return false;
  for (let i = 0; i < rounds; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench hub failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
