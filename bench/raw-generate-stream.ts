/**
 * Raw generate streaming overhead (issue 15): `POST /v1/hub/generate` with `stream: true` against the
 * router's own stream of the same body, in the same run. Reports what the hub adds to the time to the
 * first content chunk and to each gap between chunks (p50 and p99), against the targets ≤ 1 ms and
 * ≤ 0.2 ms per chunk at p50. Router, hub and a do-nothing streaming proxy (support/passthrough-proxy.ts)
 * each run in their own process; streams run one at a time, rotating direct, via the proxy and via the
 * hub, so all see the same machine state. The proxy is the floor: what any extra HTTP hop costs here. Writes
 * bench/results/raw-generate-stream.json.
 */
import path from 'node:path';
import { Pool } from 'undici';
import { REGISTER_TS, spawnBenchChild, type BenchChild } from './support/child';
import { runAsMain, writeResult } from './support/results';
import { atMost, OVERHEAD_TARGETS, type TargetRow } from './support/targets';
import { spawnHub } from './support/spawn-hub';
import { spawnFakeRouter } from './support/spawn-router';
import { pct, timedStream, type TimedStream } from './support/timed-stream';

const MODEL = 'gemma-4-12b';
const CHUNKS = 48;
const CHUNK_DELAY_MS = 5;
const FIRST_DELAY_MS = 20;
const BODY = { model: MODEL, messages: [{ role: 'user', content: 'Write the SQL.' }], stream: true, stream_options: { include_usage: true }, temperature: 0 };

function ok(s: TimedStream): TimedStream {
  if (s.status !== 200 || s.error || s.frames.at(-1)?.name !== '[DONE]') throw new Error(`stream failed: status ${s.status}, ${s.error ?? `last frame ${s.frames.at(-1)?.name}`}`);
  return s;
}

/** Content chunks only: frames[0] is the role delta; the last three are finish, usage and [DONE]. */
const contentFrames = (s: TimedStream) => s.frames.slice(1, 1 + CHUNKS);

export async function benchRawGenerateStream(samples = 40) {
  const pieces = Array.from({ length: CHUNKS }, (_, i) => `tok${i} `);
  const router = await spawnFakeRouter({ models: [MODEL] }, [{ match: { stream: true }, chunks: pieces, chunkDelayMs: CHUNK_DELAY_MS, delayMs: FIRST_DELAY_MS }]);
  let hub: Awaited<ReturnType<typeof spawnHub>> | undefined;
  let direct: Pool | undefined;
  let viaHub: Pool | undefined;
  let proxy: BenchChild | undefined;
  let viaProxy: Pool | undefined;
  try {
    hub = await spawnHub({ LLM_BASE_URL: router.baseUrl, ROUTER_MAX_CONCURRENCY: '1' });
    direct = new Pool(router.baseUrl, { connections: 1 });
    viaHub = new Pool(hub.url, { connections: 1 });
    proxy = await spawnBenchChild(['-r', REGISTER_TS, path.join(__dirname, 'support/passthrough-proxy.ts'), router.baseUrl]);
    viaProxy = new Pool(proxy.url, { connections: 1 });
    for (let i = 0; i < 4; i++) {
      ok(await timedStream(direct, '/v1/chat/completions', BODY));
      ok(await timedStream(viaProxy, '/v1/chat/completions', BODY));
      ok(await timedStream(viaHub, '/v1/hub/generate', BODY));
    }
    const d: TimedStream[] = [];
    const x: TimedStream[] = [];
    const h: TimedStream[] = [];
    for (let i = 0; i < samples; i++) {
      d.push(ok(await timedStream(direct, '/v1/chat/completions', BODY)));
      x.push(ok(await timedStream(viaProxy, '/v1/chat/completions', BODY)));
      h.push(ok(await timedStream(viaHub, '/v1/hub/generate', BODY)));
    }
    const first = (xs: TimedStream[]) => xs.map((s) => contentFrames(s)[0].atMs);
    const gaps = (xs: TimedStream[]) => xs.flatMap((s) => {
      const f = contentFrames(s);
      return f.slice(1).map((x, i) => x.atMs - f[i].atMs);
    });
    // Per chunk, the hub's cost is how much later than the router's each chunk lands, spread over the chunks.
    const perChunk = (xs: TimedStream[]) => xs.map((s) => {
      const f = contentFrames(s);
      return (f[f.length - 1].atMs - f[0].atMs) / (f.length - 1);
    });
    const p = (xs: number[]) => ({ p50: pct(xs, 50), p99: pct(xs, 99) });
    const addedFirst = pct(first(h), 50) - pct(first(d), 50);
    const addedPerChunk = pct(perChunk(h), 50) - pct(perChunk(d), 50);
    const proxyAddedFirst = pct(first(x), 50) - pct(first(d), 50);
    return {
      samples,
      chunks: CHUNKS,
      router_pacing: `${FIRST_DELAY_MS} ms before headers, ${CHUNKS} chunks x ${CHUNK_DELAY_MS} ms`,
      direct_first_chunk_ms: p(first(d)),
      hub_first_chunk_ms: p(first(h)),
      added_first_chunk_ms_p50: addedFirst,
      proxy_first_chunk_ms: p(first(x)),
      proxy_added_first_chunk_ms_p50: proxyAddedFirst,
      /** The hub's own share: what it adds beyond the bare extra hop. */
      hub_over_proxy_first_chunk_ms_p50: addedFirst - proxyAddedFirst,
      direct_chunk_gap_ms: p(gaps(d)),
      hub_chunk_gap_ms: p(gaps(h)),
      added_per_chunk_ms_p50: addedPerChunk,
      ratio_first_chunk_p50: pct(first(h), 50) / pct(first(d), 50),
      proxy_added_per_chunk_ms_p50: pct(perChunk(x), 50) - pct(perChunk(d), 50),
    };
  } finally {
    await direct?.destroy();
    await viaHub?.destroy();
    await viaProxy?.destroy();
    await proxy?.stop();
    await hub?.stop();
    await router.stop();
  }
}

export type RawGenerateStreamResult = Awaited<ReturnType<typeof benchRawGenerateStream>>;

/** Decision 29's raw-generate targets: the first chunk against the streaming proxy of the same run, and per chunk. */
export function rawGenerateTargetRows(r: RawGenerateStreamResult): TargetRow[] {
  return [
    atMost(`raw generate first chunk added p50 (proxy's + ${OVERHEAD_TARGETS.firstChunkOverProxyMs})`, r.added_first_chunk_ms_p50, r.proxy_added_first_chunk_ms_p50 + OVERHEAD_TARGETS.firstChunkOverProxyMs, 'ms', `proxy adds ${r.proxy_added_first_chunk_ms_p50.toFixed(3)} ms`),
    atMost('raw generate added per chunk p50', r.added_per_chunk_ms_p50, OVERHEAD_TARGETS.perChunkMs, 'ms', `proxy adds ${r.proxy_added_per_chunk_ms_p50.toFixed(3)} ms`),
  ];
}

export function formatRawGenerateStream(r: RawGenerateStreamResult): string {
  const f = (x: number) => x.toFixed(3);
  const rows = rawGenerateTargetRows(r);
  return (
    `raw generate stream, ${r.samples} streams of ${r.chunks} chunks, alternating with the router direct: ` +
    `first chunk hub p50 ${f(r.hub_first_chunk_ms.p50)} vs router ${f(r.direct_first_chunk_ms.p50)} ms → added ${f(r.added_first_chunk_ms_p50)} ms (target ${rows[0].target}; ratio ${r.ratio_first_chunk_p50.toFixed(3)}x; a do-nothing streaming proxy adds ${f(r.proxy_added_first_chunk_ms_p50)}, so the hub's own share is ${f(r.hub_over_proxy_first_chunk_ms_p50)}); ` +
    `per chunk added p50 ${f(r.added_per_chunk_ms_p50)} ms (target ≤ ${OVERHEAD_TARGETS.perChunkMs}; the proxy adds ${f(r.proxy_added_per_chunk_ms_p50)}; gap hub p50 ${f(r.hub_chunk_gap_ms.p50)} / p99 ${f(r.hub_chunk_gap_ms.p99)} vs router ${f(r.direct_chunk_gap_ms.p50)} / ${f(r.direct_chunk_gap_ms.p99)} ms); ` +
    `${rows.every((t) => t.holds) ? 'meets' : 'MISSES'} the targets`
  );
}

export async function runRawGenerateStreamBench(): Promise<RawGenerateStreamResult> {
  const r = await benchRawGenerateStream();
  writeResult('raw-generate-stream', r);
  return r;
}

if (require.main === module) runAsMain('raw generate stream', runRawGenerateStreamBench, formatRawGenerateStream);
