/**
 * What OpenTelemetry costs the hub, in one run: `npm run bench:telemetry`. Hubs with tracing off (no OTLP
 * endpoint: the default) and on (OTEL_EXPORTER_OTLP_ENDPOINT at a loopback OTLP/HTTP receiver in this
 * process, which answers 200 and counts what it got) run side by side against one fake router child, two
 * hubs per side spawned off, on, on, off, and each round measures both sides in alternating order (as
 * bench/revisions.ts does for two revisions):
 * - hub CPU per checked turn: blocking single-12b-checked turns on a BENCH_TELEMETRY_RECORDS-record chart;
 * - hub CPU per leg: blocking Answer legs on the leg-overhead bench's 40-record chart, one at a time.
 * CPU is process.cpuUsage() of the hub child (the batch export included: spans leave from the hub's process),
 * asked over IPC before and after. Prints each side's median over the rounds and the ratio on / off (median
 * and quartiles of the rounds' own ratios), and the spans the receiver got per turn. Writes
 * bench/results/telemetry.json.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { CHART as LEG_CHART, HUB_MODEL as LEG_MODEL } from './leg-overhead';
import { CHECKED, formatRatio, meanCpuPerRequest, median, pairedRatio } from './support/paired-cpu';
import { MODEL, productRequest, productScripts, QUESTION } from './support/product-fixtures';
import { runAsMain, writeResult } from './support/results';
import { spawnHub, type SpawnedHub } from './support/spawn-hub';
import { spawnFakeRouter } from './support/spawn-router';

const ROUNDS = Number(process.env.BENCH_TELEMETRY_ROUNDS ?? 5);
const TURNS = Number(process.env.BENCH_TELEMETRY_TURNS ?? 60);
const LEGS = Number(process.env.BENCH_TELEMETRY_LEGS ?? 600);
const RECORDS = Number(process.env.BENCH_TELEMETRY_RECORDS ?? 365);
const WARMUP_TURNS = 40;
const WARMUP_LEGS = 1000;

/** A loopback OTLP/HTTP collector that answers every export with 200 and counts spans and bytes. */
async function startReceiver(): Promise<{ url: string; spans: () => number; bytes: () => number; close: () => Promise<void> }> {
  let spans = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bytes += body.length;
      // Each span object carries one "spanId": counting them needs no parse of the whole document.
      spans += body.toString('utf8').split('"spanId"').length - 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Side {
  name: 'off' | 'on';
  hubs: Array<{ hub: SpawnedHub; pool: Pool }>;
  turnMs: number[];
  legMs: number[];
}

/** A hub's place in the run moves its figures a little: each side gets an early and a late hub. */
const HUB_ORDER = [0, 1, 1, 0] as const;

const sideCpu = (side: Side, payload: string, n: number) => meanCpuPerRequest(side.hubs, payload, n);

export async function benchTelemetry() {
  const receiver = await startReceiver();
  const router = await spawnFakeRouter({ models: [MODEL] }, productScripts());
  const sides: Side[] = [
    { name: 'off', hubs: [], turnMs: [], legMs: [] },
    { name: 'on', hubs: [], turnMs: [], legMs: [] },
  ];
  const envs: Array<Record<string, string>> = [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }];
  try {
    for (const i of HUB_ORDER) {
      const hub = await spawnHub({ LLM_BASE_URL: router.baseUrl, ...envs[i] });
      sides[i].hubs.push({ hub, pool: new Pool(hub.url, { connections: 1 }) });
    }
    const turn = JSON.stringify(productRequest(CHECKED, RECORDS));
    const leg = JSON.stringify({ model: LEG_MODEL, messages: [{ role: 'user', content: LEG_CHART }, { role: 'user', content: QUESTION }] });
    for (const side of sides) {
      await sideCpu(side, turn, WARMUP_TURNS);
      await sideCpu(side, leg, WARMUP_LEGS);
    }
    const spansBefore = receiver.spans();
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) side.turnMs.push(await sideCpu(side, turn, TURNS));
      for (const side of order) side.legMs.push(await sideCpu(side, leg, LEGS));
    }
    const [off, on] = sides;
    const requests = ROUNDS * on.hubs.length * (TURNS + LEGS);
    const summary = (s: Side) => ({ checked_turn_cpu_ms: median(s.turnMs), leg_cpu_ms: median(s.legMs), checked_turn_rounds_ms: s.turnMs, leg_rounds_ms: s.legMs });
    return {
      rounds: ROUNDS,
      hubs_per_side: HUB_ORDER.length / 2,
      turns_per_round: TURNS,
      legs_per_round: LEGS,
      chart_records: RECORDS,
      off: summary(off),
      on: summary(on),
      checked_turn_ratio: pairedRatio(on.turnMs, off.turnMs),
      leg_ratio: pairedRatio(on.legMs, off.legMs),
      // Spans that arrived while the rounds ran (batches still waiting then arrive later), per request.
      spans_per_request_received: (receiver.spans() - spansBefore) / requests,
      export_bytes: receiver.bytes(),
    };
  } finally {
    for (const { hub, pool } of sides.flatMap((s) => s.hubs)) {
      await pool.destroy();
      await hub.stop();
    }
    await router.stop();
    await receiver.close();
  }
}

export type TelemetryBenchResult = Awaited<ReturnType<typeof benchTelemetry>>;

export function formatTelemetry(r: TelemetryBenchResult): string {
  const line = (name: string, s: TelemetryBenchResult['off']) => `${name}: ${s.checked_turn_cpu_ms.toFixed(2)} ms per checked turn, ${s.leg_cpu_ms.toFixed(3)} ms per leg`;
  return (
    `hub CPU with OpenTelemetry off vs on (median of ${r.rounds} alternating rounds; per round and hub ${r.turns_per_round} ${CHECKED} turns on ${r.chart_records} records and ${r.legs_per_round} blocking legs; ${r.hubs_per_side} hubs per side): ` +
    `${line('off', r.off)}; ${line('on', r.on)}; ratio on/off (median of the rounds' ratios, quartiles) ${formatRatio(r.checked_turn_ratio)} per checked turn, ${formatRatio(r.leg_ratio)} per leg; ` +
    `${r.spans_per_request_received.toFixed(2)} spans received per request while measuring`
  );
}

export async function runTelemetryBench(): Promise<TelemetryBenchResult> {
  const r = await benchTelemetry();
  writeResult('telemetry', r);
  return r;
}

if (require.main === module) runAsMain('telemetry', runTelemetryBench, formatTelemetry);
