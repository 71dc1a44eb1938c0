/**
 * A hub under test in a process of its own, for suites whose own load must not be mistaken for the
 * hub's (decision 26): started by bench/support/spawn-hub.ts with --expose-gc and none of this process's
 * environment but what the suite gives it. The fake router stays in the test process.
 */
import { removeHubJs, spawnHub, type SpawnedHub } from '../../bench/support/spawn-hub';
import type { FakeRouter } from './fake-router';
import { useRouterWith, type RouterAndHubOptions } from './hub';

/**
 * useRouterAndHub with the hub in a child process: ask it over IPC (`ctx.hub.counters()`, `gc()`,
 * `prototypes()`) or HTTP (`ctx.hub.url`, `loopLag()`). The child is stopped in afterAll, also after a
 * failed test, and ends by itself when this process goes away (its IPC channel closes).
 */
export function useRouterAndHubProcess(opts: RouterAndHubOptions = {}): { router: FakeRouter; hub: SpawnedHub } {
  // The compiled hub goes with the child (jest never runs the 'exit' handler that would remove it).
  const start = async (env: Record<string, string>) => {
    try {
      return await spawnHub(env, { exposeGc: true, inheritEnv: false });
    } catch (err) {
      removeHubJs();
      throw err;
    }
  };
  return useRouterWith(opts, start, (hub) => hub.stop().finally(removeHubJs));
}
