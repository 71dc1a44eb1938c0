/**
 * Starts the hub in its own process (bench/support/hub-process.ts) for benchmarks that read its CPU time,
 * resident memory or event-loop delay alone, and for tests whose load must not share the hub's event loop
 * (test/support/hub-process.ts). The hub sources are compiled once per run to plain JavaScript in a temporary
 * directory (swc, as scripts/register-ts.js does), so the child runs like `npm start` does — without a
 * TypeScript compiler loaded in it inflating its RSS or its CPU.
 * Set BENCH_HUB_CPU_PROF=<dir> to have every hub child write a V8 CPU profile there (node --cpu-prof; sampling
 * every BENCH_HUB_CPU_PROF_INTERVAL_US microseconds when set),
 * BENCH_HUB_NODE_OPTIONS to run the hub children (only them) with other Node options, and BENCH_HUB_NODE_FLAGS
 * for command-line flags NODE_OPTIONS does not take (V8 flags such as --single-threaded-gc).
 */
import { transformSync } from '@swc/core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, spawnBenchChild, type BenchChild } from './child';

/** Compiled hubs by source root: this checkout's, and a baseline revision's (bench/revisions.ts). */
const built = new Map<string, { dir: string; entry: string }>();

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/**
 * Compiles `root`'s server/** plus its hub entry (bench/support) to a temporary directory once; returns the
 * entry's path. `root` is this checkout unless a benchmark compares another revision's sources.
 */
export function buildHubJs(root = ROOT): string {
  const done = built.get(root);
  if (done) return done.entry;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-bench-hub-'));
  process.on('exit', () => fs.rmSync(out, { recursive: true, force: true }));
  const support = path.join(root, 'bench/support');
  const files = [...tsFiles(path.join(root, 'server')), ...['hub-process.ts', 'child.ts', 'alloc-sampler.ts'].map((f) => path.join(support, f))];
  for (const file of files) {
    const { code } = transformSync(fs.readFileSync(file, 'utf8'), {
      filename: file,
      module: { type: 'commonjs' },
      jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    });
    const target = path.join(out, path.relative(root, file)).replace(/\.ts$/, '.js');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, code);
  }
  const entry = path.join(out, 'bench/support/hub-process.js');
  built.set(root, { dir: out, entry });
  return entry;
}

/** Removes the compiled hub (once its children are stopped) where no 'exit' handler runs: a jest test file's sandbox. */
export function removeHubJs(): void {
  for (const { dir } of built.values()) fs.rmSync(dir, { recursive: true, force: true });
  built.clear();
}

/**
 * The Node flags `npm start` runs the hub with (package.json `scripts.start`): benchmark and test hubs run
 * with the same ones, so their CPU and memory figures are the product's.
 */
export function productNodeFlags(root = ROOT): string[] {
  const start = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const m = /^node((?: --\S+)*) dist\/server\/main\.js$/.exec(start);
  if (!m) throw new Error(`package.json scripts.start is not 'node [--flags] dist/server/main.js': ${start}`);
  return m[1].split(' ').filter(Boolean);
}

export interface SpawnedHub extends BenchChild {
  /** Turns the hub is running right now and router calls in flight (asked over IPC). */
  counters(): Promise<Record<string, number>>;
  /** `rounds` full garbage collections in the hub, a turn of its loop after each (needs `exposeGc`); resolves with its heap in use. */
  gc(rounds?: number): Promise<number>;
  /** Object.prototype's own keys in the hub process (sorted), and whether `{}.polluted` is set there. */
  prototypes(): Promise<{ objectKeys: string[]; polluted: boolean }>;
  /** The hub's own event-loop delay since the previous scrape of its /metrics (see LoopLag). */
  loopLag(): Promise<LoopLag>;
}

/**
 * The hub's event-loop delay as its `GET /metrics` reports it (prom-client default metrics, prefix
 * `hub_`): a perf_hooks histogram sampled every 10 ms (prom-client's eventLoopMonitoringPrecision), whose
 * values are the intervals between samples — an idle loop reads ~10 ms, a stall of S ms reads S to S + 10.
 * prom-client resets the histogram at every scrape, so each figure covers the time since the last one.
 */
export interface LoopLag {
  maxMs: number;
  p99Ms: number;
  p50Ms: number;
  meanMs: number;
}

export async function scrapeLoopLag(hubUrl: string): Promise<LoopLag> {
  const res = await fetch(`${hubUrl}/metrics`, { signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  const gauge = (name: string): number => {
    const m = new RegExp(`^hub_nodejs_eventloop_lag_${name}_seconds (\\S+)$`, 'm').exec(text);
    if (!m) throw new Error(`hub /metrics (${res.status}) has no hub_nodejs_eventloop_lag_${name}_seconds`);
    return Number(m[1]) * 1000;
  };
  return { maxMs: gauge('max'), p99Ms: gauge('p99'), p50Ms: gauge('p50'), meanMs: gauge('mean') };
}

/**
 * A hub child on loopback, configured from `env` (LLM_BASE_URL at least), tracing into a temporary directory.
 * `opts.root`: run the hub of another source tree (a baseline revision), with its own profiles and prompts.
 */
export async function spawnHub(env: Record<string, string>, opts: { exposeGc?: boolean; inheritEnv?: boolean; root?: string; wrapper?: string[]; readyTimeoutMs?: number } = {}): Promise<SpawnedHub> {
  const root = opts.root ?? ROOT;
  const entry = buildHubJs(root);
  const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-bench-trace-'));
  const profDir = process.env.BENCH_HUB_CPU_PROF;
  try {
    const interval = process.env.BENCH_HUB_CPU_PROF_INTERVAL_US;
    const prof = profDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profDir), ...(interval ? ['--cpu-prof-interval', interval] : [])] : [];
    const extra = (process.env.BENCH_HUB_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
    const flags = [...productNodeFlags(root), ...prof, ...(opts.exposeGc ? ['--expose-gc'] : []), ...extra];
    const child = await spawnBenchChild([...flags, entry], {
      inheritEnv: opts.inheritEnv,
      wrapper: opts.wrapper,
      readyTimeoutMs: opts.readyTimeoutMs,
      env: {
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        TEAM_TRACE_DIR: traceDir,
        HUB_ANCHOR: '2026-03-10',
        // The knowledge-base source off unless a suite or bench turns it on: turns keep their prompts and call counts.
        KNOWLEDGE_SOURCE: 'off',
        KNOWLEDGE_DB_PATH: ':memory:',
        ...env,
        ...(process.env.BENCH_HUB_NODE_OPTIONS !== undefined ? { NODE_OPTIONS: process.env.BENCH_HUB_NODE_OPTIONS } : {}),
        BENCH_HUB_ROOT: root,
        NODE_PATH: path.join(ROOT, 'node_modules'),
      },
    });
    return {
      ...child,
      counters: async () => (await child.usage()).counters,
      gc: async (rounds = 1) => {
        const r = await child.ask<{ collected: boolean; heapUsedBytes: number }>({ type: 'gc', rounds });
        if (!r.collected) throw new Error('hub child was not started with --expose-gc');
        return r.heapUsedBytes;
      },
      prototypes: async () => {
        const { objectKeys, polluted } = await child.ask<{ objectKeys: string[]; polluted: boolean }>({ type: 'prototypes' });
        return { objectKeys, polluted };
      },
      loopLag: () => scrapeLoopLag(child.url),
      async stop() {
        try {
          await child.stop();
        } finally {
          fs.rmSync(traceDir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    fs.rmSync(traceDir, { recursive: true, force: true });
    throw err;
  }
}
