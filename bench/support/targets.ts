/**
 * The product's performance targets (decisions 27-29), each read against a baseline measured in the same
 * run: overhead as the do-nothing proxy's figure plus an allowance, throughput as a share of the proxy's,
 * memory in MiB, router requests per checked turn as a count. `npm run bench` ends with one table of them:
 * the target, the hub's figure, the baseline's figure, and whether it holds.
 */

/** Decision 29 (p50, this 2-core class of machine). */
export const OVERHEAD_TARGETS = {
  /** A blocking leg's added latency over a direct router call ≤ the proxy's added + this (ms). */
  legAddedOverProxyMs: 1.0,
  /** Raw generate's first chunk added ≤ the streaming proxy's added + this (ms). */
  firstChunkOverProxyMs: 0.6,
  /** Raw generate's added latency per chunk (ms). */
  perChunkMs: 0.2,
  /** 32 concurrent zero-delay legs: hub throughput ≥ this share of the proxy's. */
  c32ThroughputShareOfProxy: 0.5,
} as const;

/**
 * Decision 28 (RSS, MiB): the hub just started and idle, and with 128 staged streams open. After warm-up is
 * issue 11's figure, kept beside them.
 */
export const MEMORY_TARGETS = { idleMb: 75, warmMb: 90, open128Mb: 110 } as const;

/** Decision 27: router requests (counts and chats) per clean single-12b-checked turn. */
export const CHECKED_TURN_MAX_ROUTER_REQUESTS = 7;

export interface TargetRow {
  target: string;
  figure: string;
  baseline: string;
  holds: boolean;
}

const f = (x: number) => x.toFixed(3);

export function atMost(target: string, value: number, limit: number, unit: string, baseline: string): TargetRow {
  return { target: `${target} ≤ ${unit === 'ms' ? f(limit) : limit} ${unit}`.trim(), figure: `${unit === 'ms' ? f(value) : value.toFixed(1)} ${unit}`.trim(), baseline, holds: value <= limit };
}

export function atLeast(target: string, value: number, limit: number, unit: string, baseline: string): TargetRow {
  return { target: `${target} ≥ ${limit} ${unit}`.trim(), figure: `${value.toFixed(2)} ${unit}`.trim(), baseline, holds: value >= limit };
}

/** The table `npm run bench` ends with, one row per target. */
export function formatTargets(rows: readonly TargetRow[]): string {
  const width = (k: keyof TargetRow) => Math.max(k.length, ...rows.map((r) => String(r[k]).length));
  const cols: Array<keyof TargetRow> = ['target', 'figure', 'baseline', 'holds'];
  const w = cols.map(width);
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(w[i])).join(' | ')} |`;
  const out = [line(cols.map(String)), line(w.map((n) => '-'.repeat(n)))];
  for (const r of rows) out.push(line([r.target, r.figure, r.baseline, r.holds ? 'met' : 'MISSED']));
  return `targets (decisions 27-29; baselines from this run):\n${out.join('\n')}\n${rows.every((r) => r.holds) ? 'all targets hold' : `${rows.filter((r) => !r.holds).length} target(s) MISSED`}`;
}
