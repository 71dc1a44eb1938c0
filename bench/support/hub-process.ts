/**
 * A hub in its own process for benchmarks that need its CPU time or resident memory alone: configured
 * from the environment like production (loadConfig), prints `READY <url>`, answers `{ type: 'usage' }`
 * (and `{ type: 'gc' }` when started with --expose-gc) over IPC, and closes on SIGTERM or when the parent goes away.
 */
import { loadConfig } from '../../server/config';
import { startHub } from '../../server/main';
import { answerUsage, ROOT } from './child';

async function main(): Promise<void> {
  // Compiled into a temporary directory by spawn-hub.ts: profiles and prompts are read from the repository.
  const hub = await startHub(loadConfig(process.env, process.env.BENCH_HUB_ROOT ?? ROOT));
  process.stdout.write(`READY ${hub.url}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // process.exit() (not a natural exit) would skip --cpu-prof output, so let the loop drain instead.
    void hub.close().finally(() => {
      if (process.connected) process.disconnect();
      setTimeout(() => process.exit(0), 2000).unref();
    });
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
  process.on('message', (msg: { type?: string }) => {
    if (msg?.type === 'usage') {
      const slots = hub.routerSlots();
      process.send?.(answerUsage({ activeTurns: hub.activeTurns(), startedTurns: hub.startedTurns(), routerInFlight: slots.inFlight, routerQueued: slots.queued }));
    }
    // Only with --expose-gc (spawnHub({ exposeGc: true })): tells garbage apart from live memory.
    if (msg?.type === 'gc') {
      (globalThis as { gc?: () => void }).gc?.();
      process.send?.({ type: 'gc', collected: typeof (globalThis as { gc?: unknown }).gc === 'function' });
    }
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench hub failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
