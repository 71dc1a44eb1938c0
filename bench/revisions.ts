/**
 * Hub CPU of this checkout against a baseline revision, in one run: `npm run bench:revisions -- <git-ref>`
 * (or BENCH_BASELINE_REF; default HEAD, i.e. uncommitted changes against the last commit). For a change
 * meant to leave behaviour and cost alone (a refactor), this is the figure that says whether it did.
 * The baseline's server/, bench/support/, profiles/ and prompts/ are taken from git into a temporary folder
 * and compiled like this checkout's; both hubs run in their own processes against one fake router child.
 * Each revision runs as two hubs, spawned this, baseline, baseline, this (a hub's place in the run moved its
 * figures), and each round measures both revisions in alternating order (so drift in the machine's speed
 * falls on both), a revision's figure being the mean of its two hubs':
 * - hub CPU per checked turn: blocking single-12b-checked turns on a BENCH_REVISION_RECORDS-record chart;
 * - hub CPU per leg: blocking Answer legs on the 40-record chart of the leg-overhead bench, one at a time.
 * CPU is process.cpuUsage() of the hub child, asked over IPC before and after. Prints the median of the
 * rounds per revision and the ratio this / baseline as the median of the per-round ratios (each round's two
 * figures were measured back to back, so a drift in the machine's speed falls on both), with the quartiles
 * of those ratios: on this VM, two hubs of the same commit read anywhere from 0.96 to 1.03 ×, so a ratio
 * inside that spread says "no difference found". Writes bench/results/revisions.json.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { ROOT } from './support/child';
import { CHART as LEG_CHART, HUB_MODEL as LEG_MODEL } from './leg-overhead';
import { CHECKED, formatRatio, meanCpuPerRequest, median, pairedRatio } from './support/paired-cpu';
import { MODEL, productRequest, productScripts, QUESTION } from './support/product-fixtures';
import { runAsMain, writeResult } from './support/results';
import { spawnHub, type SpawnedHub } from './support/spawn-hub';
import { spawnFakeRouter } from './support/spawn-router';

const ROUNDS = Number(process.env.BENCH_REVISION_ROUNDS ?? 5);
const TURNS = Number(process.env.BENCH_REVISION_TURNS ?? 60);
const LEGS = Number(process.env.BENCH_REVISION_LEGS ?? 600);
const RECORDS = Number(process.env.BENCH_REVISION_RECORDS ?? 365);
const WARMUP_TURNS = 40;
const WARMUP_LEGS = 1000;
/** What the baseline needs of its own tree to run as a hub child. */
const TREE_PARTS = ['server', 'bench/support', 'profiles', 'prompts', 'package.json'];

/** The baseline's sources, extracted from git into a temporary folder (removed at exit). */
export function extractRevision(ref: string): { root: string; commit: string } {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-bench-baseline-'));
  process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  const tar = execFileSync('git', ['archive', '--format=tar', commit, ...TREE_PARTS], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', root], { input: tar });
  return { root, commit };
}

/** One hub child of one revision. */
interface Hub {
  hub: SpawnedHub;
  pool: Pool;
}

interface Side {
  name: string;
  /** Two hubs per revision, spawned in the order this, baseline, baseline, this (see HUB_ORDER). */
  hubs: Hub[];
  turnMs: number[];
  legMs: number[];
}

/**
 * Which side each spawned hub belongs to, in spawn order. A hub's place in the run moved its figures by a
 * few per cent (the first hub spawned read about 4 % cheaper per checked turn than an identical second one),
 * so each revision gets one early and one late hub, and each round visits them in mirrored order.
 */
const HUB_ORDER = [0, 1, 1, 0] as const;

/** Mean hub CPU per request of `side`'s hubs, `n` requests each, one at a time. */
const sideCpu = (side: Side, payload: string, n: number) => meanCpuPerRequest(side.hubs, payload, n);

export async function benchRevisions(ref = process.env.BENCH_BASELINE_REF ?? process.argv[2] ?? 'HEAD') {
  const baseline = extractRevision(ref);
  const router = await spawnFakeRouter({ models: [MODEL] }, productScripts());
  const sides: Side[] = [
    { name: 'this checkout', hubs: [], turnMs: [], legMs: [] },
    { name: `baseline ${baseline.commit.slice(0, 10)}`, hubs: [], turnMs: [], legMs: [] },
  ];
  const roots = [ROOT, baseline.root];
  try {
    for (const i of HUB_ORDER) {
      const hub = await spawnHub({ LLM_BASE_URL: router.baseUrl }, { root: roots[i] });
      sides[i].hubs.push({ hub, pool: new Pool(hub.url, { connections: 1 }) });
    }
    const turn = JSON.stringify(productRequest(CHECKED, RECORDS));
    const leg = JSON.stringify({ model: LEG_MODEL, messages: [{ role: 'user', content: LEG_CHART }, { role: 'user', content: QUESTION }] });
    for (const side of sides) {
      await sideCpu(side, turn, WARMUP_TURNS);
      await sideCpu(side, leg, WARMUP_LEGS);
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) side.turnMs.push(await sideCpu(side, turn, TURNS));
      for (const side of order) side.legMs.push(await sideCpu(side, leg, LEGS));
    }
    const [current, base] = sides;
    const summary = (s: Side) => ({ revision: s.name, checked_turn_cpu_ms: median(s.turnMs), leg_cpu_ms: median(s.legMs), checked_turn_rounds_ms: s.turnMs, leg_rounds_ms: s.legMs });
    return {
      baseline_ref: ref,
      baseline_commit: baseline.commit,
      rounds: ROUNDS,
      hubs_per_revision: HUB_ORDER.length / 2,
      turns_per_round: TURNS,
      legs_per_round: LEGS,
      chart_records: RECORDS,
      current: summary(current),
      baseline: summary(base),
      checked_turn_ratio: pairedRatio(current.turnMs, base.turnMs),
      leg_ratio: pairedRatio(current.legMs, base.legMs),
    };
  } finally {
    for (const { hub, pool } of sides.flatMap((s) => s.hubs)) {
      await pool.destroy();
      await hub.stop();
    }
    await router.stop();
  }
}

export type RevisionsResult = Awaited<ReturnType<typeof benchRevisions>>;

export function formatRevisions(r: RevisionsResult): string {
  const line = (s: RevisionsResult['current']) => `${s.revision}: ${s.checked_turn_cpu_ms.toFixed(2)} ms per checked turn, ${s.leg_cpu_ms.toFixed(3)} ms per leg`;
  return (
    `hub CPU, this checkout vs ${r.baseline_ref} (median of ${r.rounds} alternating rounds; per round and hub ${r.turns_per_round} ${CHECKED} turns on ${r.chart_records} records and ${r.legs_per_round} blocking legs; ${r.hubs_per_revision} hubs per revision): ` +
    `${line(r.current)}; ${line(r.baseline)}; ratio (median of the rounds' ratios, quartiles) ${formatRatio(r.checked_turn_ratio)} per checked turn, ${formatRatio(r.leg_ratio)} per leg`
  );
}

export async function runRevisionsBench(): Promise<RevisionsResult> {
  const r = await benchRevisions();
  writeResult('revisions', r);
  return r;
}

if (require.main === module) runAsMain('revisions', runRevisionsBench, formatRevisions);
