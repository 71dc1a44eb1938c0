/** Starts the fake router in a child process and returns its URL, usage probes and a stop function. */
import path from 'node:path';
import type { FakeRouterOptions } from '../../test/support/fake-router';
import { REGISTER_TS, spawnBenchChild, type BenchChild } from './child';
import type { BenchScript } from './scripts';

export interface SpawnedRouter extends BenchChild {
  baseUrl: string;
  /** Bodies of the last `n` chat requests the router received. */
  lastChats(n: number): Promise<Array<Record<string, unknown>>>;
  /** Path and body of the last `n` requests of any kind (counts, tokenizer, chats). */
  lastRequests(n: number): Promise<Array<{ path: string; body: unknown }>>;
}

/**
 * The benchmarks' router renders Gemma 4's chat template (the shipped catalogue's writer is `gemma-4-12b`), whose
 * turn markers are special tokens, unless `opts.template` says otherwise.
 */
export const BENCH_TEMPLATE = 'gemma4' as const;

export async function spawnFakeRouter(opts: FakeRouterOptions, scripts: BenchScript[] = []): Promise<SpawnedRouter> {
  const child = await spawnBenchChild(['-r', REGISTER_TS, path.join(__dirname, 'fake-router-process.ts'), JSON.stringify({ template: BENCH_TEMPLATE, ...opts }), JSON.stringify(scripts)]);
  return {
    ...child,
    baseUrl: child.url,
    lastChats: async (n) => (await child.ask<{ bodies: Array<Record<string, unknown>> }>({ type: 'lastChats', n })).bodies,
    lastRequests: async (n) => (await child.ask<{ requests: Array<{ path: string; body: unknown }> }>({ type: 'lastRequests', n })).requests,
  };
}
