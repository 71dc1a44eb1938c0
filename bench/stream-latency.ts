/**
 * Stream latency. The brief's first measure — a low-level leg streamed through the hub vs the router's
 * own stream, added time to first chunk and per-chunk gap — does not apply today: a non-staged stream
 * drains the engine and then emits the whole envelope as chunks (hub-contract §3.2), and the hub calls
 * the router blocking. So this measures the staged product stream (single-12b-fast, stream: true) instead:
 * time to response headers and to the `answer_done` event, against the router's complete response to the
 * very request the hub sends it (captured from one turn; blocking, answered after 65 × 20 ms, the time the
 * router takes to stream the same Answer as 64 chunks × 20 ms). The router's own stream of that request
 * and the leg's time to first chunk are reported alongside, to show what the drain costs a leg client.
 * Streams are sent 4 at a time (turns share one event loop: at 10 at a time the added p50 grew from
 * ~50 to ~140 ms). Router and hub each run in their own process. Writes bench/results/stream-latency.json.
 */
import { Pool } from 'undici';
import { ANSWER, MODEL, productRequest, splitInto } from './support/product-fixtures';
import { runAsMain, writeResult } from './support/results';
import { spawnHub } from './support/spawn-hub';
import { spawnFakeRouter } from './support/spawn-router';
import { inWaves, pct, timedStream, type TimedStream } from './support/timed-stream';

const CHUNKS = 64;
const CHUNK_DELAY_MS = 20;
const RECORDS = 40;
const PATH = '/v1/chat/completions';

function ok(s: TimedStream, lastFrame: string): TimedStream {
  if (s.status !== 200 || s.error || s.frames.at(-1)?.name !== lastFrame) throw new Error(`stream failed: status ${s.status}, ${s.error ?? `last frame ${s.frames.at(-1)?.name}`}`);
  return s;
}

const at = (s: TimedStream, name: string) => s.frames.find((f) => f.name === name)!.atMs;

export async function benchStreamLatency(samples = 24, concurrency = 4) {
  const router = await spawnFakeRouter({ models: [MODEL] }, [
    { match: { stream: true }, chunks: splitInto(ANSWER, CHUNKS), chunkDelayMs: CHUNK_DELAY_MS },
    { match: { stream: false }, content: ANSWER, delayMs: (CHUNKS + 1) * CHUNK_DELAY_MS },
  ]);
  let hub: Awaited<ReturnType<typeof spawnHub>> | undefined;
  let direct: Pool | undefined;
  let viaHub: Pool | undefined;
  try {
    hub = await spawnHub({ LLM_BASE_URL: router.baseUrl, ROUTER_MAX_CONCURRENCY: String(concurrency), ROUTER_MAX_QUEUE: '64' });
    direct = new Pool(router.baseUrl, { connections: concurrency });
    viaHub = new Pool(hub.url, { connections: concurrency });
    const staged = productRequest('single-12b-fast', RECORDS, { stream: true });
    const leg = productRequest('answer:gemma-4-12b~off', RECORDS, { stream: true });
    // The baseline sends the router exactly the Answer request the hub sends it (captured from one turn).
    ok(await timedStream(viaHub, PATH, staged), 'done');
    const routerBody = (await router.lastChats(1))[0];
    const streamedBody = { ...routerBody, stream: true };
    const run = (pool: Pool, body: unknown, last: string, n: number) => inWaves(n, concurrency, async () => ok(await timedStream(pool, PATH, body), last));
    await run(viaHub, staged, 'done', concurrency); // warm-up
    await run(viaHub, leg, '[DONE]', 2);
    await blocking(direct, routerBody, 2, concurrency);
    const d = await blocking(direct, routerBody, samples, concurrency);
    const h = await run(viaHub, staged, 'done', samples);
    const ds = await run(direct, streamedBody, '[DONE]', samples / 2);
    const l = await run(viaHub, leg, '[DONE]', samples / 2);
    const directFirst = ds.map((s) => s.frames[1].atMs); // frames[0] is the role delta, sent with the headers
    const directGaps = ds.flatMap((s) => s.frames.slice(2, 1 + CHUNKS).map((f, i) => f.atMs - s.frames[1 + i].atMs));
    const hubHeaders = h.map((s) => s.headersMs);
    const hubAnswerDone = h.map((s) => at(s, 'answer_done'));
    const legFirst = l.map((s) => s.frames[0].atMs);
    const p = (xs: number[]) => ({ p50: pct(xs, 50), p99: pct(xs, 99) });
    const added = (hub: number[], base: number[]) => ({ p50: pct(hub, 50) - pct(base, 50), p99: pct(hub, 99) - pct(base, 99) });
    return {
      samples,
      concurrency,
      chart_records: RECORDS,
      router_pacing: `${CHUNKS} chunks x ${CHUNK_DELAY_MS} ms streamed; ${(CHUNKS + 1) * CHUNK_DELAY_MS} ms before a blocking reply`,
      measured: 'staged single-12b-fast headers and answer_done vs the router\'s complete response to the same Answer request; a leg stream is drained first (hub-contract §3.2)',
      direct_complete_ms: p(d.complete),
      hub_headers_ms: p(hubHeaders),
      hub_answer_done_ms: p(hubAnswerDone),
      hub_done_ms: p(h.map((s) => at(s, 'done'))),
      added_headers_ms: added(hubHeaders, ds.map((s) => s.headersMs)),
      added_answer_done_ms: added(hubAnswerDone, d.complete),
      ratio_answer_done_p50: pct(hubAnswerDone, 50) / pct(d.complete, 50),
      direct_stream_samples: ds.length,
      direct_stream_headers_ms: p(ds.map((s) => s.headersMs)),
      direct_stream_first_chunk_ms: p(directFirst),
      direct_stream_chunk_gap_ms: p(directGaps),
      direct_stream_complete_ms: p(ds.map((s) => s.endMs)),
      leg_samples: l.length,
      leg_first_chunk_ms: p(legFirst),
      leg_first_chunk_vs_direct_stream_ratio_p50: pct(legFirst, 50) / pct(directFirst, 50),
    };
  } finally {
    await direct?.destroy();
    await viaHub?.destroy();
    await hub?.stop();
    await router.stop();
  }
}

/** Blocking requests straight to the router, `concurrency` at a time: time to the complete body. */
async function blocking(pool: Pool, body: unknown, n: number, concurrency: number): Promise<{ complete: number[] }> {
  const payload = JSON.stringify(body);
  const rows = await inWaves(n, concurrency, async () => {
    const t0 = performance.now();
    const res = await pool.request({ method: 'POST', path: PATH, headers: { 'content-type': 'application/json' }, body: payload });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`router status ${res.statusCode}`);
    return performance.now() - t0;
  });
  return { complete: rows };
}

export type StreamLatencyResult = Awaited<ReturnType<typeof benchStreamLatency>>;

export function formatStreamLatency(r: StreamLatencyResult): string {
  const f = (x: number) => x.toFixed(1);
  return (
    `stream latency, staged single-12b-fast (not a leg: a leg stream is drained before its first chunk, so no per-chunk figure), ${r.samples} streams ${r.concurrency} at a time, router paced ${CHUNKS}x${CHUNK_DELAY_MS} ms: ` +
    `headers hub p50 ${f(r.hub_headers_ms.p50)} / p99 ${f(r.hub_headers_ms.p99)} ms vs router stream p50 ${f(r.direct_stream_headers_ms.p50)} / p99 ${f(r.direct_stream_headers_ms.p99)} ms; ` +
    `answer_done p50 ${f(r.hub_answer_done_ms.p50)} / p99 ${f(r.hub_answer_done_ms.p99)} ms vs router complete response (same request, blocking as the hub sends it) p50 ${f(r.direct_complete_ms.p50)} / p99 ${f(r.direct_complete_ms.p99)} ms ` +
    `→ added p50 ${f(r.added_answer_done_ms.p50)} ms, p99 ${f(r.added_answer_done_ms.p99)} ms (ratio ${r.ratio_answer_done_p50.toFixed(3)}x); ` +
    `leg answer:gemma-4-12b~off first chunk p50 ${f(r.leg_first_chunk_ms.p50)} ms vs router stream first chunk p50 ${f(r.direct_stream_first_chunk_ms.p50)} ms ` +
    `(ratio ${r.leg_first_chunk_vs_direct_stream_ratio_p50.toFixed(1)}x; router chunk gap p50 ${f(r.direct_stream_chunk_gap_ms.p50)} / p99 ${f(r.direct_stream_chunk_gap_ms.p99)} ms)`
  );
}

export async function runStreamLatencyBench(): Promise<StreamLatencyResult> {
  const r = await benchStreamLatency();
  writeResult('stream-latency', r);
  return r;
}

if (require.main === module) runAsMain('stream latency', runStreamLatencyBench, formatStreamLatency);
