/**
 * What the side-by-side hub CPU benches share (bench:revisions, bench:revisions:instructions, bench:telemetry):
 * sending one blocking request, hub CPU per request, and the median and quartiles of per-round ratios.
 */
import type { Pool } from 'undici';
import type { SpawnedHub } from './spawn-hub';

/** The checked profile these benches measure a turn of. */
export const CHECKED = 'single-12b-checked';

/** One blocking chat completion; anything but 200 fails the bench. */
export async function post(pool: Pool, payload: string): Promise<void> {
  const res = await pool.request({ method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, body: payload });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}: ${text.slice(0, 300)}`);
}

/** Hub CPU (ms) per request over `n` requests sent one at a time. */
export async function cpuPerRequest(hub: SpawnedHub, pool: Pool, payload: string, n: number): Promise<number> {
  const before = await hub.usage();
  for (let i = 0; i < n; i++) await post(pool, payload);
  const after = await hub.usage();
  return (after.cpuUs - before.cpuUs) / 1000 / n;
}

/** Mean hub CPU per request over `hubs`, `n` requests each, one at a time. */
export async function meanCpuPerRequest(hubs: ReadonlyArray<{ hub: SpawnedHub; pool: Pool }>, payload: string, n: number): Promise<number> {
  let sum = 0;
  for (const { hub, pool } of hubs) sum += await cpuPerRequest(hub, pool, payload, n);
  return sum / hubs.length;
}

/** The `q` quantile (0..1) of `xs`, linear between the closest ranks. */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo);
}

export function median(xs: number[]): number {
  return quantile(xs, 0.5);
}

export interface PairedRatio {
  median: number;
  q1: number;
  q3: number;
}

/** Per-round ratios a / b (each round's two figures measured back to back): their median and quartiles. */
export function pairedRatio(a: number[], b: number[]): PairedRatio {
  const ratios = a.map((x, i) => x / b[i]);
  return { median: median(ratios), q1: quantile(ratios, 0.25), q3: quantile(ratios, 0.75) };
}

export function formatRatio(r: PairedRatio): string {
  return `${r.median.toFixed(3)} × (${r.q1.toFixed(3)}–${r.q3.toFixed(3)})`;
}
