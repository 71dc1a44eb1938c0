/**
 * Every envelope the hub writes in a test file, validated against the envelope schemas when the file
 * ends (a jest setup file: see jest.config.js). The hub runs in the test process, so what it writes
 * is read where it is written — `ServerResponse#write`/`end` of `POST /v1/chat/completions` on a hub
 * (the response carries the hub's `x-request-id`) — without touching the tests' own reading of the
 * responses (no tee, no extra consumer that could change backpressure or cancellation).
 *
 * Read from a 200 response: each staged event's data (`answer_done` … `done` → ProductEnvelope,
 * `error` → ErrorEventData); a blocking body's or a non-staged stream's message content
 * (BlockingProductEnvelope when it carries `safetyCheck`, which only product turns do; LegEnvelope
 * otherwise — each schema refuses the other's keys). A hub started as a child process is not seen.
 */
import http from 'node:http';
import { envelopeViolations, type EnvelopeKind } from './envelope-validators';

interface Seen {
  kind: EnvelopeKind;
  where: string;
  value: unknown;
}

const STAGED = new Set(['answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'indepth_error', 'done']);
const written = new WeakMap<http.ServerResponse, string[]>();
const seen: Seen[] = [];

function watched(res: http.ServerResponse): boolean {
  const url = (res as { req?: http.IncomingMessage }).req?.url ?? '';
  return url.split('?')[0] === '/v1/chat/completions' && res.hasHeader('x-request-id');
}

function keep(res: http.ServerResponse, chunk: unknown): void {
  if (chunk === undefined || chunk === null || typeof chunk === 'function' || !watched(res)) return;
  const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : '';
  const list = written.get(res) ?? [];
  list.push(text);
  written.set(res, list);
}

function contentKind(content: unknown): EnvelopeKind {
  return content && typeof content === 'object' && 'safetyCheck' in content ? 'BlockingProductEnvelope' : 'LegEnvelope';
}

function record(kind: EnvelopeKind, where: string, json: string): void {
  try {
    seen.push({ kind, where, value: JSON.parse(json) });
  } catch {
    seen.push({ kind, where: `${where} (not JSON)`, value: json });
  }
}

/** Complete frames only: a stream cut by a leaving client may end inside one. */
function readStream(body: string, where: string): void {
  const frames = body.split('\n\n').slice(0, -1);
  let content = '';
  for (const frame of frames) {
    const lines = frame.split('\n');
    const event = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length);
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice('data: '.length)).join('\n');
    if (event !== undefined) {
      if (STAGED.has(event)) record('ProductEnvelope', `${where} event ${event}`, data);
      else if (event === 'error') record('ErrorEventData', `${where} event error`, data);
      continue;
    }
    // A non-staged stream: OpenAI chunks whose deltas carry the envelope as one JSON string.
    if (data === '' || data === '[DONE]') continue;
    const delta = (JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta?.content;
    if (typeof delta === 'string') content += delta;
  }
  if (content !== '') record(contentKind(safeParse(content)), `${where} chunk stream`, content);
}

function safeParse(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

function settle(res: http.ServerResponse): void {
  const chunks = written.get(res);
  written.delete(res);
  if (!chunks || res.statusCode !== 200) return;
  const body = chunks.join('');
  const where = `${(res as { req?: http.IncomingMessage }).req?.method ?? ''} ${res.getHeader('x-request-id')}`;
  if (String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) return readStream(body, where);
  const content = (safeParse(body) as { choices?: Array<{ message?: { content?: unknown } }> } | null)?.choices?.[0]?.message?.content;
  if (typeof content === 'string') record(contentKind(safeParse(content)), `${where} blocking body`, content);
}

let installed = false;

/** Starts recording (idempotent). */
export function recordEnvelopes(): void {
  if (installed) return;
  installed = true;
  const proto = http.ServerResponse.prototype as unknown as { write: (...a: unknown[]) => boolean; end: (...a: unknown[]) => unknown };
  const write = proto.write;
  const end = proto.end;
  proto.write = function (this: http.ServerResponse, ...args: unknown[]) {
    keep(this, args[0]);
    return write.apply(this, args);
  };
  proto.end = function (this: http.ServerResponse, ...args: unknown[]) {
    keep(this, args[0]);
    if (written.has(this)) settle(this);
    return end.apply(this, args);
  };
}

/** What was recorded so far in this test file, and each schema violation as `where: path message`. */
export function recordedEnvelopes(): { counts: Record<EnvelopeKind, number>; violations: string[] } {
  const counts: Record<EnvelopeKind, number> = { ProductEnvelope: 0, BlockingProductEnvelope: 0, LegEnvelope: 0, ErrorEventData: 0 };
  const violations: string[] = [];
  for (const s of seen) {
    counts[s.kind]++;
    for (const v of envelopeViolations(s.kind, s.value)) violations.push(`${s.kind} (${s.where}): ${v}`);
  }
  return { counts, violations };
}
