/**
 * Runs the test suite's fake llama.cpp router in its own process, so benchmarks time the hub and the
 * router on separate event loops (as in production). Prints `READY <baseUrl>` on stdout.
 */
import { FakeRouter, type FakeRouterOptions } from '../../test/support/fake-router';

async function main(): Promise<void> {
  const opts = JSON.parse(process.argv[2] ?? '{}') as FakeRouterOptions;
  const router = new FakeRouter(opts);
  const url = await router.start();
  process.stdout.write(`READY ${url}\n`);
  const stop = () => void router.stop().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
}

void main();
