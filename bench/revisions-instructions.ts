/**
 * The CPU comparison of bench/revisions.ts counted in machine instructions instead of seconds:
 * `npm run bench:revisions:instructions -- <git-ref>`. Each hub runs under valgrind's callgrind (same
 * compiled tree, same Node flags, same fake router and requests as bench:revisions); it warms up with
 * instrumentation off, then the instructions it executes (guest Ir, all threads: JIT, GC and compiler
 * threads included) are counted over BENCH_REVISION_TURNS checked turns and, separately, BENCH_REVISION_LEGS
 * blocking legs. Instruction counts move far less with the machine's load than CPU seconds do, so this
 * helps answer "did a change cost CPU?" when the seconds are too noisy to (see HUB_ORDER for what still moves). Needs valgrind (on the
 * machine; Debian's `valgrind` package). A hub under valgrind runs ~50× slower: the defaults (20 turns,
 * 200 legs, hubs this, baseline, baseline, this) take ~10 minutes. BENCH_HUB_NODE_FLAGS=--predictable
 * (V8's single-threaded, fixed-schedule GC) narrows the spread between hubs. Writes bench/results/revisions-instructions.json.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { ROOT } from './support/child';
import { CHART as LEG_CHART, HUB_MODEL as LEG_MODEL } from './leg-overhead';
import { extractRevision } from './revisions';
import { CHECKED, median, post } from './support/paired-cpu';
import { MODEL, productRequest, productScripts, QUESTION } from './support/product-fixtures';
import { runAsMain, writeResult } from './support/results';
import { spawnHub } from './support/spawn-hub';
import { spawnFakeRouter } from './support/spawn-router';

const TURNS = Number(process.env.BENCH_REVISION_TURNS ?? 20);
const LEGS = Number(process.env.BENCH_REVISION_LEGS ?? 200);
const RECORDS = Number(process.env.BENCH_REVISION_RECORDS ?? 365);
const WARMUP_TURNS = 40;
const WARMUP_LEGS = 1000;
/**
 * Spawn order of the hubs by revision (0 this checkout, 1 the baseline): this, baseline, baseline, this, as
 * in bench:revisions, repeated BENCH_REVISION_HUB_PAIRS times (default 1). Counts still move a few per cent
 * from hub to hub (the hub's timers — trace flushes, idle connections let go — fire by the clock, and a hub
 * under valgrind runs ~50× slower than the clock expects), so each revision's figure is the median of its hubs.
 */
const HUB_ORDER = Array.from({ length: Number(process.env.BENCH_REVISION_HUB_PAIRS ?? 1) }, () => [0, 1, 1, 0] as const).flat();

/** callgrind_control talks to the hub's valgrind through named pipes under this prefix (ours, not /tmp's shared names). */
let vgdbPrefix = '';
/** valgrind names those pipes after $USER and $HOST as the hub saw them; the hub runs with HOST=127.0.0.1. */
const VGDB_ENV = { ...process.env, HOST: '127.0.0.1' };

/**
 * Guest instructions the callgrind run `pid` has counted since its counters were last zeroed: the sum of
 * the per-thread lines (`Th 1  221,097,880`) under `Totals:` in `callgrind_control -e Ir`.
 */
function instructions(pid: number): number {
  const out = execFileSync('callgrind_control', [`--vgdb-prefix=${vgdbPrefix}`, '-e', 'Ir', String(pid)], { encoding: 'utf8', env: VGDB_ENV, stdio: ['ignore', 'pipe', 'ignore'] });
  const totals = out.slice(out.indexOf('Totals:'));
  const threads = totals.split('\n').flatMap((line) => {
    const [th, n, count] = line.trim().split(/ +/);
    return th === 'Th' && /^\d+$/.test(n ?? '') && /^[\d,]+$/.test(count ?? '') ? [Number(count.replace(/,/g, ''))] : [];
  });
  if (!out.includes('Totals:') || threads.length === 0) throw new Error(`callgrind_control printed no Ir totals for ${pid}:\n${out}`);
  return threads.reduce((a, b) => a + b, 0);
}

function callgrind(pid: number, ...args: string[]): void {
  const out = execFileSync('callgrind_control', [`--vgdb-prefix=${vgdbPrefix}`, ...args, String(pid)], { encoding: 'utf8', env: VGDB_ENV, stdio: ['ignore', 'pipe', 'ignore'] });
  if (!/OK\./.test(out)) throw new Error(`callgrind_control ${args.join(' ')} ${pid} failed:\n${out}`);
}

/** Instructions per request over `n` requests sent one at a time, counted from zero. */
async function instructionsPerRequest(pid: number, pool: Pool, payload: string, n: number): Promise<number> {
  callgrind(pid, '--zero');
  for (let i = 0; i < n; i++) await post(pool, payload);
  return instructions(pid) / n;
}

export async function benchRevisionInstructions(ref = process.env.BENCH_BASELINE_REF ?? process.argv[2] ?? 'HEAD') {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  const baseline = extractRevision(ref);
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-bench-callgrind-'));
  vgdbPrefix = path.join(outDir, 'vgdb');
  const router = await spawnFakeRouter({ models: [MODEL] }, productScripts());
  const roots = [ROOT, baseline.root];
  const turn = JSON.stringify(productRequest(CHECKED, RECORDS));
  const leg = JSON.stringify({ model: LEG_MODEL, messages: [{ role: 'user', content: LEG_CHART }, { role: 'user', content: QUESTION }] });
  const perTurn: number[][] = [[], []];
  const perLeg: number[][] = [[], []];
  try {
    for (const side of HUB_ORDER) {
      const wrapper = ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${outDir}/callgrind.%p`, '--log-file=/dev/null', `--vgdb-prefix=${vgdbPrefix}`];
      const hub = await spawnHub({ LLM_BASE_URL: router.baseUrl }, { root: roots[side], wrapper, readyTimeoutMs: 300_000 });
      const pool = new Pool(hub.url, { connections: 1 });
      try {
        for (let i = 0; i < WARMUP_TURNS; i++) await post(pool, turn);
        for (let i = 0; i < WARMUP_LEGS; i++) await post(pool, leg);
        callgrind(hub.pid, '--instr=on');
        // One turn and a few legs instrumented before counting: their first run pays valgrind's translation only, but the hub's code is the same.
        await post(pool, turn);
        perTurn[side].push(await instructionsPerRequest(hub.pid, pool, turn, TURNS));
        perLeg[side].push(await instructionsPerRequest(hub.pid, pool, leg, LEGS));
      } finally {
        await pool.destroy();
        await hub.stop();
      }
    }
  } finally {
    await router.stop();
    fs.rmSync(outDir, { recursive: true, force: true });
  }
  const ratio = (xs: number[][]) => median(xs[0]) / median(xs[1]);
  return {
    baseline_ref: ref,
    baseline_commit: baseline.commit,
    turns: TURNS,
    legs: LEGS,
    chart_records: RECORDS,
    current: { checked_turn_instructions: perTurn[0], leg_instructions: perLeg[0] },
    baseline: { checked_turn_instructions: perTurn[1], leg_instructions: perLeg[1] },
    checked_turn_ratio: ratio(perTurn),
    leg_ratio: ratio(perLeg),
  };
}

export type RevisionInstructionsResult = Awaited<ReturnType<typeof benchRevisionInstructions>>;

export function formatRevisionInstructions(r: RevisionInstructionsResult): string {
  const m = (xs: number[]) => `${(median(xs) / 1e6).toFixed(2)} M (${xs.map((x) => (x / 1e6).toFixed(2)).join(', ')})`;
  return (
    `hub instructions (callgrind), this checkout vs ${r.baseline_ref} ${r.baseline_commit.slice(0, 10)}; per ${CHECKED} turn on ${r.chart_records} records (${r.turns} turns per hub): ` +
    `this ${m(r.current.checked_turn_instructions)}, baseline ${m(r.baseline.checked_turn_instructions)}, ratio ${r.checked_turn_ratio.toFixed(4)}; ` +
    `per blocking leg (${r.legs} per hub): this ${m(r.current.leg_instructions)}, baseline ${m(r.baseline.leg_instructions)}, ratio ${r.leg_ratio.toFixed(4)}`
  );
}

export async function runRevisionInstructionsBench(): Promise<RevisionInstructionsResult> {
  const r = await benchRevisionInstructions();
  writeResult('revisions-instructions', r);
  return r;
}

if (require.main === module) runAsMain('revisions-instructions', runRevisionInstructionsBench, formatRevisionInstructions);
