/**
 * QueryStore turns: wall time and hub CPU per single-12b-bare blocking turn for a RECORDS-record chart read from
 * a fake QueryStore (in this process, speaking the real wire) — on a cold cache (each turn a patient the hub has
 * not seen: every page acquired) and on a warm one (the same patient: one first-page request answered 304) —
 * and CONCURRENT turns at once for one uncached patient (single-flight: one acquisition). Baseline, same run:
 * the same chart sent inline (ChartSearchAI's older layout), so the ratios are what fetching the chart costs
 * over being handed it. The hub and the fake router run in their own processes (hub CPU is the hub's alone).
 * Writes bench/results/querystore.json.
 */
import { Pool } from 'undici';
import { FakeQuerystore, qsChart } from '../test/support/fake-querystore';
import { MODEL, productRequest, productScripts, QUESTION } from './support/product-fixtures';
import { runAsMain, writeResult } from './support/results';
import { spawnHub, type SpawnedHub } from './support/spawn-hub';
import { spawnFakeRouter } from './support/spawn-router';
import { pct } from './support/timed-stream';

const RECORDS = Number(process.env.BENCH_QS_RECORDS ?? 365);
const TURNS = Number(process.env.BENCH_QS_TURNS ?? 60);
const WARMUP = Number(process.env.BENCH_QS_WARMUP ?? 20);
const CONCURRENT = 20;
const PROFILE = 'single-12b-bare';
const PATH = '/v1/chat/completions';

/**
 * What QueryStore's slice returns for "What is the latest weight?" over `chart`: the patient, allergies and
 * active conditions `mandatory`, the weights `typed`, the latest encounter a `recency_anchor` (not the whole chart).
 */
function realisticSlice(chart: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const tierOf = (r: Record<string, unknown>): string | null => {
    const text = String(r.text);
    if (r.resourceType === 'patient' || r.resourceType === 'allergy' || (r.resourceType === 'condition' && text.includes('ACTIVE'))) return 'mandatory';
    if (text.startsWith('Weight')) return 'typed';
    return null;
  };
  const rows = chart.flatMap((r) => (tierOf(r) ? [{ ...r, tier: tierOf(r) }] : []));
  const encounter = chart.find((r) => r.resourceType === 'encounter');
  return encounter ? [...rows, { ...encounter, tier: 'recency_anchor' }] : rows;
}

function patientBody(patient: string): string {
  return JSON.stringify({ model: PROFILE, patient, messages: [{ role: 'user', content: QUESTION }], context: { require_product_profile: true } });
}

async function post(pool: Pool, payload: string): Promise<void> {
  const res = await pool.request({ method: 'POST', path: PATH, headers: { 'content-type': 'application/json' }, body: payload });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}: ${text.slice(0, 300)}`);
}

interface Series { wall_p50_ms: number; wall_p99_ms: number; hub_cpu_ms_per_turn: number }

/** TURNS turns, one at a time: per-turn wall times and the hub's CPU over all of them. */
async function measure(hub: SpawnedHub, pool: Pool, payloadFor: (i: number) => string): Promise<Series> {
  const walls: number[] = [];
  const before = await hub.usage();
  for (let i = 0; i < TURNS; i++) {
    const t0 = performance.now();
    await post(pool, payloadFor(i));
    walls.push(performance.now() - t0);
  }
  const after = await hub.usage();
  return { wall_p50_ms: pct(walls, 50), wall_p99_ms: pct(walls, 99), hub_cpu_ms_per_turn: (after.cpuUs - before.cpuUs) / 1000 / TURNS };
}

export async function benchQuerystore() {
  const router = await spawnFakeRouter({ models: [MODEL] }, productScripts());
  const qs = new FakeQuerystore();
  const qsUrl = await qs.start();
  const chart = qsChart(RECORDS, { seed: 'bench' });
  let hub: SpawnedHub | undefined;
  let pool: Pool | undefined;
  try {
    hub = await spawnHub({ LLM_BASE_URL: router.baseUrl, QUERYSTORE_BASE_URL: qsUrl, QUERYSTORE_USERNAME: 'med-agent-hub', QUERYSTORE_PASSWORD: 'hub-secret' });
    // Concurrent turns for one patient hold one connection each.
    pool = new Pool(hub.url, { connections: CONCURRENT });
    const inline = JSON.stringify(productRequest(PROFILE, RECORDS));
    const cold = (i: number) => `cold-${i}`;
    const slice = realisticSlice(chart);
    const setPatient = (p: string) => {
      qs.setChart(p, chart);
      qs.setSlice(p, slice);
    };
    for (let i = 0; i < TURNS + WARMUP; i++) setPatient(cold(i));
    setPatient('warm');
    for (let i = 0; i < WARMUP; i++) {
      await post(pool, inline);
      await post(pool, patientBody(cold(TURNS + i)));
      await post(pool, patientBody('warm'));
    }
    const baseline = await measure(hub, pool, () => inline);
    qs.reset();
    for (let i = 0; i < TURNS; i++) qs.setSlice(cold(i), slice);
    qs.setSlice('warm', slice);
    const coldRun = await measure(hub, pool, (i) => patientBody(cold(i)));
    const coldCounts = qs.counts();
    qs.reset();
    qs.setSlice('warm', slice);
    const warmRun = await measure(hub, pool, () => patientBody('warm'));
    const warmCounts = qs.counts('warm');
    qs.reset();
    setPatient('together');
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CONCURRENT }, () => post(pool!, patientBody('together'))));
    const concurrentWall = performance.now() - t0;
    const together = qs.counts('together');
    return {
      chart_records: RECORDS,
      turns: TURNS,
      profile: PROFILE,
      inline: baseline,
      cold: { ...coldRun, ledger_pages_per_turn: coldCounts.ledgerPages / TURNS, acquisitions: coldCounts.acquisitions, ratio_cpu_vs_inline: coldRun.hub_cpu_ms_per_turn / baseline.hub_cpu_ms_per_turn, ratio_wall_vs_inline: coldRun.wall_p50_ms / baseline.wall_p50_ms },
      warm: { ...warmRun, first_pages_per_turn: warmCounts.firstPages / TURNS, not_modified: warmCounts.notModified, acquisitions: warmCounts.acquisitions, ratio_cpu_vs_inline: warmRun.hub_cpu_ms_per_turn / baseline.hub_cpu_ms_per_turn, ratio_wall_vs_inline: warmRun.wall_p50_ms / baseline.wall_p50_ms },
      concurrent: { turns: CONCURRENT, wall_ms: concurrentWall, acquisitions: together.acquisitions, first_pages: together.firstPages, not_modified: together.notModified },
    };
  } finally {
    await pool?.destroy();
    await hub?.stop();
    await qs.stop();
    await router.stop();
  }
}

export type QuerystoreResult = Awaited<ReturnType<typeof benchQuerystore>>;

export function formatQuerystore(r: QuerystoreResult): string {
  const f = (x: number) => x.toFixed(1);
  const row = (s: Series) => `wall p50 ${f(s.wall_p50_ms)} / p99 ${f(s.wall_p99_ms)} ms, hub CPU ${f(s.hub_cpu_ms_per_turn)} ms/turn`;
  return (
    `querystore (${r.profile}, ${r.chart_records}-record chart, ${r.turns} blocking turns each; hub and router in their own processes, fake QueryStore in this one): ` +
    `cold cache ${row(r.cold)} (${f(r.cold.ledger_pages_per_turn)} pages/turn; CPU ${r.cold.ratio_cpu_vs_inline.toFixed(2)}x, wall ${r.cold.ratio_wall_vs_inline.toFixed(2)}x inline); ` +
    `304 revalidation ${row(r.warm)} (${f(r.warm.first_pages_per_turn)} first-page requests/turn, ${r.warm.not_modified} answered 304, ${r.warm.acquisitions} acquisitions; CPU ${r.warm.ratio_cpu_vs_inline.toFixed(2)}x, wall ${r.warm.ratio_wall_vs_inline.toFixed(2)}x inline) ` +
    `vs the same chart inline ${row(r.inline)}; ${r.concurrent.turns} concurrent turns for one uncached patient: ${f(r.concurrent.wall_ms)} ms, ` +
    `${r.concurrent.acquisitions} acquisition (${r.concurrent.first_pages - r.concurrent.acquisitions} later turns revalidated, ${r.concurrent.not_modified} answered 304)`
  );
}

export async function runQuerystoreBench(): Promise<QuerystoreResult> {
  const r = await benchQuerystore();
  writeResult('querystore', r);
  return r;
}

if (require.main === module) runAsMain('querystore', runQuerystoreBench, formatQuerystore);
