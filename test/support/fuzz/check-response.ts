/**
 * What every fuzzed response must look like: no 5xx but the designed ones, the decision-1 error shape
 * on every non-2xx, a strictly framed staged SSE body with a valid lifecycle, a well-formed OpenAI
 * chunk stream, or a blocking chat.completion whose content is a JSON envelope.
 */
import type { FuzzCase } from './hostile-bodies';
import { STAGED_PROFILES } from './hostile-bodies';
import { FramingError, lifecycleProblem, parseStrictSse, type LifecycleRules } from './strict-sse';

export interface Outcome {
  status: number;
  contentType: string;
  text: string;
  ms: number;
}

/** 5xx answers this hub may give by design on bad input (no router trouble is possible in the fuzz run). */
const DESIGNED_5XX: ReadonlyArray<[number, string]> = [
  [501, 'stage_not_implemented'],
  [503, 'context_source_unavailable'],
  [503, 'context_source_failed'],
];

export interface Verdict {
  problem: string | null;
  /** e.g. '200 staged answer_done>indepth_pending>indepth_done>done', '400 invalid_request_error' */
  kind: string;
  /**
   * A staged stream whose payloads carried line breaks or SSE field text (escaped inside JSON strings):
   * proof that the hostile text really reached the wire, so the framing check was not vacuous.
   */
  carriedInjection?: boolean;
  heartbeats?: number;
}

/** Escaped CR/U+2028/U+2029, or SSE field lines, inside a data line's JSON (plain LFs are common in envelopes). */
const CARRIED = /\\r|\\u2028|\\u2029|event: (?:done|error|answer_done|indepth_done)|data: [{[]/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function errorShapeProblem(body: unknown): string | null {
  if (!isObject(body)) return 'error body is not a JSON object';
  const { error, detail } = body;
  if (!isObject(error)) return 'error body has no "error" object';
  if (typeof error.message !== 'string' || error.message === '') return 'error.message is not a non-empty string';
  if (typeof error.type !== 'string' || error.type === '') return 'error.type is not a non-empty string';
  if (!('param' in error) || (error.param !== null && typeof error.param !== 'string')) return 'error.param is not a string or null';
  if (typeof error.code !== 'string' || error.code === '') return 'error.code is not a non-empty string';
  if (!isObject(detail)) return 'error body has no "detail" object';
  if (typeof detail.code !== 'string' || detail.code === '') return 'detail.code is not a non-empty string';
  if (typeof detail.message !== 'string' || detail.message === '') return 'detail.message is not a non-empty string';
  if (detail.code !== error.code) return `detail.code ${detail.code} differs from error.code ${error.code}`;
  return null;
}

function stagedRules(c: FuzzCase, firstModel: unknown): LifecycleRules {
  if (c.staged) return c.staged;
  if (typeof firstModel === 'string' && firstModel in STAGED_PROFILES) return STAGED_PROFILES[firstModel];
  return {};
}

function chunkStreamProblem(text: string): string | null {
  if (text.includes('\r')) return 'raw CR in a non-staged chunk stream';
  if (!text.endsWith('\n\n')) return 'chunk stream does not end with a blank line';
  const frames = text.slice(0, -2).split('\n\n');
  for (const [i, frame] of frames.entries()) {
    if (!frame.startsWith('data: ') || frame.includes('\n')) return `chunk frame ${i} is not one 'data: ' line: ${JSON.stringify(frame.slice(0, 120))}`;
    const payload = frame.slice(6);
    if (payload === '[DONE]') {
      if (i !== frames.length - 1) return '[DONE] is not the last chunk frame';
      continue;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(payload);
    } catch {
      return `chunk frame ${i} is not JSON`;
    }
    if (!isObject(chunk) || chunk.object !== 'chat.completion.chunk') return `chunk frame ${i} is not a chat.completion.chunk`;
  }
  if (frames[frames.length - 1] !== 'data: [DONE]') return 'chunk stream does not end with [DONE]';
  return null;
}

export function judge(c: FuzzCase, o: Outcome): Verdict {
  const verdict = judgeShape(c, o);
  if (verdict.problem === null && c.expectStatus && !c.expectStatus.includes(o.status)) {
    return { ...verdict, problem: `status ${o.status} (${verdict.kind}), expected ${c.expectStatus.join('|')}` };
  }
  return verdict;
}

function judgeShape(c: FuzzCase, o: Outcome): Verdict {
  const ct = o.contentType.toLowerCase();
  if (o.status >= 200 && o.status < 300) {
    if (ct.startsWith('text/event-stream')) {
      if (o.text.startsWith('event: ') || o.text.startsWith(': hb')) {
        let stream;
        try {
          stream = parseStrictSse(o.text);
        } catch (err) {
          if (err instanceof FramingError) return { problem: `forged/broken SSE framing: ${err.message}`, kind: `${o.status} staged FRAMING` };
          throw err;
        }
        const names = stream.events.map((e) => e.name).join('>');
        const problem = lifecycleProblem(stream, stagedRules(c, stream.events[0]?.data.model));
        const carriedInjection = o.text.split('\n').some((line) => line.startsWith('data: ') && CARRIED.test(line.slice(6)));
        return { problem, kind: `${o.status} staged ${names}${names === 'error' ? `(${String(stream.events[0].data.code)})` : ''}`, carriedInjection, heartbeats: stream.heartbeats };
      }
      if (c.staged) return { problem: 'a product stream answered with a non-staged chunk stream', kind: `${o.status} chunks` };
      return { problem: chunkStreamProblem(o.text), kind: `${o.status} chunks` };
    }
    if (c.staged) return { problem: `a product stream answered ${o.status} ${ct} instead of event-stream`, kind: `${o.status} ${ct}` };
    let body: unknown;
    try {
      body = JSON.parse(o.text);
    } catch {
      return { problem: `2xx body is not JSON (${ct}): ${JSON.stringify(o.text.slice(0, 200))}`, kind: `${o.status} non-json` };
    }
    if (!isObject(body) || body.object !== 'chat.completion') return { problem: '2xx JSON is not a chat.completion', kind: `${o.status} ?` };
    const choices = body.choices as Array<{ message?: { content?: unknown } }> | undefined;
    const content = choices?.[0]?.message?.content;
    if (typeof content !== 'string') return { problem: 'chat.completion content is not a string', kind: `${o.status} completion` };
    try {
      if (!isObject(JSON.parse(content))) return { problem: 'chat.completion content is not a JSON object', kind: `${o.status} completion` };
    } catch {
      return { problem: 'chat.completion content is not JSON', kind: `${o.status} completion` };
    }
    return { problem: null, kind: `${o.status} completion` };
  }
  // Non-2xx: decision-1 shape, designed 5xx only.
  let body: unknown;
  try {
    body = JSON.parse(o.text);
  } catch {
    return { problem: `${o.status} body is not JSON (${ct}): ${JSON.stringify(o.text.slice(0, 200))}`, kind: `${o.status} non-json` };
  }
  const code = isObject(body) && isObject(body.detail) ? String(body.detail.code) : '?';
  const kind = `${o.status} ${code}`;
  if (!ct.startsWith('application/json')) return { problem: `${o.status} error with content-type ${ct}`, kind };
  const shape = errorShapeProblem(body);
  if (shape) return { problem: `${o.status} error shape: ${shape}: ${o.text.slice(0, 300)}`, kind };
  if (o.status >= 500 && !DESIGNED_5XX.some(([s, k]) => s === o.status && k === code)) {
    return { problem: `undesigned ${o.status} ${code}: ${o.text.slice(0, 300)}`, kind };
  }
  return { problem: null, kind };
}
