/**
 * Starts the hub in its own process (bench/support/hub-process.ts) for benchmarks that read its CPU time
 * or resident memory alone. The hub sources are compiled once per run to plain JavaScript in a temporary
 * directory (swc, as scripts/register-ts.js does), so the child runs like `npm start` does — without a
 * TypeScript compiler loaded in it inflating its RSS or its CPU.
 * Set BENCH_HUB_CPU_PROF=<dir> to have every hub child write a V8 CPU profile there (node --cpu-prof),
 * and BENCH_HUB_NODE_OPTIONS to run the hub children (only them) with other Node options.
 */
import { transformSync } from '@swc/core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, spawnBenchChild, type BenchChild } from './child';

let builtEntry: string | undefined;

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Compiles server/** plus the hub entry to a temporary directory once; returns the entry's path. */
export function buildHubJs(): string {
  if (builtEntry) return builtEntry;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-bench-hub-'));
  process.on('exit', () => fs.rmSync(out, { recursive: true, force: true }));
  const files = [...tsFiles(path.join(ROOT, 'server')), path.join(__dirname, 'hub-process.ts'), path.join(__dirname, 'child.ts')];
  for (const file of files) {
    const { code } = transformSync(fs.readFileSync(file, 'utf8'), {
      filename: file,
      module: { type: 'commonjs' },
      jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    });
    const target = path.join(out, path.relative(ROOT, file)).replace(/\.ts$/, '.js');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, code);
  }
  builtEntry = path.join(out, 'bench/support/hub-process.js');
  return builtEntry;
}

export interface SpawnedHub extends BenchChild {
  /** Turns the hub is running right now and router calls in flight (asked over IPC). */
  counters(): Promise<Record<string, number>>;
  /** A full garbage collection in the hub (needs `exposeGc`). */
  gc(): Promise<void>;
}

/** A hub child on loopback, configured from `env` (LLM_BASE_URL at least), tracing into a temporary directory. */
export async function spawnHub(env: Record<string, string>, opts: { exposeGc?: boolean } = {}): Promise<SpawnedHub> {
  const entry = buildHubJs();
  const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-bench-trace-'));
  const profDir = process.env.BENCH_HUB_CPU_PROF;
  try {
    const flags = [...(profDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profDir)] : []), ...(opts.exposeGc ? ['--expose-gc'] : [])];
    const child = await spawnBenchChild([...flags, entry], {
      env: {
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        TEAM_TRACE_DIR: traceDir,
        HUB_ANCHOR: '2026-03-10',
        ...env,
        ...(process.env.BENCH_HUB_NODE_OPTIONS !== undefined ? { NODE_OPTIONS: process.env.BENCH_HUB_NODE_OPTIONS } : {}),
        BENCH_HUB_ROOT: ROOT,
        NODE_PATH: path.join(ROOT, 'node_modules'),
      },
    });
    return {
      ...child,
      counters: async () => (await child.usage()).counters,
      gc: async () => {
        const r = await child.ask<{ collected: boolean }>({ type: 'gc' });
        if (!r.collected) throw new Error('hub child was not started with --expose-gc');
      },
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
