/**
 * A benchmark client for streamed chat completions: posts one request and timestamps (ms since the
 * request was sent) the response headers and every SSE frame as it arrives. Works for the hub's staged
 * events (`event: answer_done`…) and for OpenAI-style chunk streams (unnamed `data:` frames, `[DONE]`).
 */
import type { Dispatcher } from 'undici';

export interface TimedFrame {
  /** `event:` name; 'message' for an unnamed frame; '[DONE]' for the OpenAI terminator. */
  name: string;
  atMs: number;
  data: string;
}

export interface TimedStream {
  status: number;
  headersMs: number;
  frames: TimedFrame[];
  /** Heartbeat/ping comments seen (`: hb`, `:`). */
  comments: number;
  endMs: number;
  error?: string;
}

export async function timedStream(pool: Dispatcher, pathName: string, body: unknown, opts: { keepData?: boolean } = {}): Promise<TimedStream> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  const t0 = performance.now();
  const out: TimedStream = { status: 0, headersMs: NaN, frames: [], comments: 0, endMs: NaN };
  try {
    const res = await pool.request({ method: 'POST', path: pathName, headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: payload });
    out.status = res.statusCode;
    out.headersMs = performance.now() - t0;
    let buf = '';
    for await (const chunk of res.body) {
      const at = performance.now() - t0;
      buf += (chunk as Buffer).toString('utf8');
      let cut: number;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const frame = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        parseFrame(frame, at, out, opts.keepData === true);
      }
    }
  } catch (err) {
    out.error = err instanceof Error ? err.message : String(err);
  }
  out.endMs = performance.now() - t0;
  return out;
}

function parseFrame(frame: string, at: number, out: TimedStream, keepData: boolean): void {
  let name = '';
  const data: string[] = [];
  let comment = false;
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) comment = true;
    else if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0 && !name) {
    if (comment) out.comments++;
    return;
  }
  const text = data.join('\n');
  out.frames.push({ name: name || (text === '[DONE]' ? '[DONE]' : 'message'), atMs: at, data: keepData ? text : '' });
}

/** p-th percentile (nearest rank, 0–100) of unsorted values. */
export function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const median = (values: number[]): number => pct(values, 50);

/** Runs `task(i)` for i in [0, n) with at most `concurrency` in flight; results in index order. */
export async function inWaves<T>(n: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      out[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, concurrency) }, worker));
  return out;
}
