/**
 * Helpers of the fake llama.cpp router (see fake-router.ts): the fake tokenizer and chat template, llama.cpp-shaped
 * JSON bodies, the writers that put blocking, streamed and faulty chat completions on the wire, and small utilities.
 * Shapes follow shared/spec/router.md §1 (observed on a real llama-server).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { ScriptedReply } from './fake-router';

// ---------------------------------------------------------------- tokenizer & template

// Blanks join the piece after them (a trailing run is a piece of its own). `(?<!\s)`: a piece starts
// only where a blank run starts, which is where every match starts anyway (the lint cannot see that).
const PIECE_RE = /(?<!\s)\s*(?:[A-Za-z0-9]+|[^\sA-Za-z0-9])|\s+/gu;

/** Deterministic fake tokenizer: pieces concatenate exactly to `text` (every character falls in one alternative). */
export function fakeTokenize(text: string): string[] {
  return String(text ?? '').match(PIECE_RE) ?? [];
}

/**
 * Gemma 4's control tokens (its prompt format: `<|turn>role\n…<turn|>`). A router that parses special tokens
 * (llama.cpp's chat prompts, and `/tokenize` by default) makes each occurrence ONE token and tokenizes the
 * text between occurrences fragment by fragment, never across one.
 */
export const GEMMA4_SPECIAL_TOKENS = ['<|turn>', '<turn|>'] as const;

/**
 * The fake tokenizer with special tokens parsed: the text split at each special token (each one piece), and
 * every fragment between them tokenized on its own by `fakeTokenize`. Pieces still concatenate to `text`.
 */
export function fakeTokenizeSpecial(text: string, specials: readonly string[] = GEMMA4_SPECIAL_TOKENS): string[] {
  const s = String(text ?? '');
  const pieces: string[] = [];
  let from = 0;
  for (;;) {
    let at = -1;
    let hit = '';
    for (const t of specials) {
      const i = s.indexOf(t, from);
      if (i !== -1 && (at === -1 || i < at || (i === at && t.length > hit.length))) { at = i; hit = t; }
    }
    if (at === -1) break;
    pieces.push(...fakeTokenize(s.slice(from, at)), hit);
    from = at + hit.length;
  }
  pieces.push(...fakeTokenize(s.slice(from)));
  return pieces;
}

/** Stable id of a piece (FNV-1a), in [259, 32000) like a 32k SentencePiece vocab above the byte tokens. */
export function fakeTokenId(piece: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < piece.length; i++) {
    h ^= piece.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return 259 + (h % (32000 - 259));
}

/** Text of an OpenAI message content: string, array of parts ({type:'text',text}), null, or anything else (JSON). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content)) {
    return content
      .map((p) => (typeof p === 'string' ? p : p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
      .join('');
  }
  return JSON.stringify(content);
}

/** Llama-2 `[INST]`-style fake chat template, matching the example of router.md: no BOS (added at tokenisation). */
export function fakeApplyTemplate(messages: Array<{ role: string; content: unknown }>): string {
  let out = '';
  for (const m of Array.isArray(messages) ? messages : []) {
    if (!m || typeof m !== 'object') continue;
    const c = contentText(m.content);
    if (m.role === 'system') out += `<<SYS>>\n${c}\n<</SYS>>\n\n`;
    else if (m.role === 'user') out += `[INST] ${c} [/INST]`;
    else if (m.role === 'assistant') out += ` ${c} </s>`;
    else out += `[${String(m.role)}] ${c}\n`;
  }
  return out;
}

/** Chat templates the fake router can render: Llama 2's `[INST]` (default) or Gemma 4's turns. */
export type FakeTemplate = 'llama2' | 'gemma4';

/**
 * Gemma 4-style fake chat template: `<|turn>role\ncontent<turn|>\n` per message (the assistant's role is
 * `model`), then the generation prompt `<|turn>model\n`. Consecutive user messages are accepted, as Gemma 4's
 * template does; no BOS (added at tokenisation).
 */
export function fakeGemma4Template(messages: Array<{ role: string; content: unknown }>): string {
  let out = '';
  for (const m of Array.isArray(messages) ? messages : []) {
    if (!m || typeof m !== 'object') continue;
    out += `<|turn>${m.role === 'assistant' ? 'model' : String(m.role)}\n${contentText(m.content)}<turn|>\n`;
  }
  return `${out}<|turn>model\n`;
}

/** The template's rendering and the router's tokenization of a chat prompt (special tokens parsed). */
export function fakeChat(template: FakeTemplate): { render: typeof fakeApplyTemplate; tokenize: (text: string, parseSpecial?: boolean) => string[] } {
  if (template === 'gemma4') return { render: fakeGemma4Template, tokenize: (text, parseSpecial = true) => (parseSpecial ? fakeTokenizeSpecial(text) : fakeTokenize(text)) };
  return { render: fakeApplyTemplate, tokenize: (text) => fakeTokenize(text) };
}

// ---------------------------------------------------------------- JSON shapes

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  500: 'server_error', 501: 'not_supported_error', 503: 'unavailable_error',
};
const DEFAULT_MESSAGES: Record<number, string> = {
  400: 'Invalid request', 401: 'Invalid API Key', 403: 'Forbidden', 404: 'File Not Found',
  500: 'Internal server error', 501: 'This server does not support this feature', 503: 'Loading model',
};

/** llama.cpp error body `{"error":{"code","message","type",…extra}}`. */
export function errorJson(code: number, message?: string, type?: string, extra?: Record<string, unknown>): { error: Record<string, unknown> } {
  return {
    error: {
      code,
      message: message ?? DEFAULT_MESSAGES[code] ?? `HTTP ${code}`,
      type: type ?? ERROR_TYPES[code] ?? (code >= 500 ? 'server_error' : 'invalid_request_error'),
      ...extra,
    },
  };
}

export const PEG_ERROR = errorJson(500, 'The model produced output that does not match the expected peg-native format');

/** What a chat reply needs besides the script: identity and prompt accounting of this completion. */
export interface ChatInfo {
  id: string;
  created: number;
  model: string;
  promptTokens: number;
  cachedTokens: number;
}

export function usageAndTimings(info: ChatInfo, reply: ScriptedReply, content: string) {
  const prompt = reply.usage?.prompt_tokens ?? info.promptTokens;
  const completion = reply.usage?.completion_tokens ?? fakeTokenize(content).length;
  const cached = Math.min(info.cachedTokens, prompt);
  const ms = (n: number, per: number) => Math.round(n * per * 1000) / 1000;
  const usage = { completion_tokens: completion, prompt_tokens: prompt, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } };
  const timings = {
    cache_n: cached, prompt_n: prompt - cached, prompt_ms: ms(prompt - cached, 0.15), prompt_per_token_ms: 0.15, prompt_per_second: 6666.667,
    predicted_n: completion, predicted_ms: ms(completion, 0.3), predicted_per_token_ms: 0.3, predicted_per_second: 3333.333,
  };
  return { usage, timings };
}

function head(info: ChatInfo) {
  return { created: info.created, id: info.id, model: info.model, system_fingerprint: 'b0-unknown', object: 'chat.completion.chunk' };
}

export function streamChunk(info: ChatInfo, delta: Record<string, unknown>, finishReason: string | null, extra?: Record<string, unknown>) {
  return { choices: [{ finish_reason: finishReason, index: 0, delta }], ...head(info), ...extra };
}

/** `tool_calls` entries as llama.cpp sends them (arguments are JSON text). */
export function wireToolCalls(reply: ScriptedReply): Array<Record<string, unknown>> | undefined {
  if (!reply.toolCalls?.length) return undefined;
  return reply.toolCalls.map((c) => ({
    type: 'function',
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
    id: c.id ?? randomId(32),
  }));
}

function finishOf(reply: ScriptedReply): string {
  return reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
}

export function blockingBody(info: ChatInfo, reply: ScriptedReply, content: string) {
  const { usage, timings } = usageAndTimings(info, reply, content);
  const toolCalls = wireToolCalls(reply);
  // llama.cpp sends `content: null` beside tool calls when the model wrote no text.
  const message = toolCalls ? { role: 'assistant', content: content === '' ? null : content, tool_calls: toolCalls } : { role: 'assistant', content };
  return {
    choices: [{ finish_reason: finishOf(reply), index: 0, message }],
    created: info.created, model: info.model, system_fingerprint: 'b0-unknown', object: 'chat.completion',
    usage, id: info.id, timings,
  };
}

/** Default stream deltas: the content in pieces of 4 code points (never splits a surrogate pair). */
export function splitContent(content: string, size = 4): string[] {
  const cps = Array.from(content);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out;
}

// ---------------------------------------------------------------- wire writers

/** One open HTTP exchange as the writers see it. */
export interface Conn {
  res: ServerResponse;
  readonly closed: boolean;
  /** resolves true after `ms`, false as soon as the client has gone */
  sleep(ms: number): Promise<boolean>;
}

/** Writes unless the client has gone; waits for 'drain' under backpressure. Returns false once the client is gone. */
export async function write(conn: Conn, data: string): Promise<boolean> {
  if (conn.closed) return false;
  if (conn.res.write(data)) return true;
  await new Promise<void>((resolve) => {
    const done = () => { conn.res.off('drain', done); conn.res.off('close', done); resolve(); };
    conn.res.on('drain', done);
    conn.res.on('close', done);
  });
  return !conn.closed;
}

const event = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;
const PING_MS = 1000;

/** Waits `ms`, sending an SSE comment ping `:` per full second of silence (llama.cpp's keep-alive, scaled down). */
async function waitWithPings(conn: Conn, ms: number): Promise<boolean> {
  let left = ms;
  while (left > PING_MS) {
    if (!(await conn.sleep(PING_MS)) || !(await write(conn, ':\n\n'))) return false;
    left -= PING_MS;
  }
  return left > 0 ? conn.sleep(left) : !conn.closed;
}

/** Resolves true once `until` settles, false as soon as the client has gone. */
function untilOrGone(conn: Conn, until: Promise<unknown>): Promise<boolean> {
  if (conn.closed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const gone = () => resolve(false);
    conn.res.once('close', gone);
    void until.then(() => {
      conn.res.off('close', gone);
      resolve(!conn.closed);
    });
  });
}

export const PROXY_HEADERS = { Connection: 'close', 'Keep-Alive': 'timeout=5, max=100' };

/** A blocking (non-stream) chat completion, including the `malformed_json`, `cut_sse` and `huge` faults. */
export async function writeBlocking(conn: Conn, info: ChatInfo, reply: ScriptedReply, content: string): Promise<void> {
  const { res } = conn;
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', ...PROXY_HEADERS });
  if (reply.fault === 'malformed_json') {
    await write(conn, `{"choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","content":${JSON.stringify(content)}}],"object":"chat.completion",`);
    return void res.end();
  }
  const full = JSON.stringify(blockingBody(info, reply, content));
  if (reply.fault === 'cut_sse') {
    await write(conn, full.slice(0, Math.floor(full.length / 2)));
    return void res.destroy();
  }
  if (reply.fault === 'huge') {
    const marker = '"content":""';
    const body = JSON.stringify(blockingBody(info, reply, ''));
    const at = body.indexOf(marker) + marker.length - 1;
    if (!(await write(conn, body.slice(0, at)))) return;
    if (!(await writeFiller(conn, reply.hugeBytes ?? HUGE_DEFAULT, (s) => s))) return;
    await write(conn, body.slice(at));
    return void res.end();
  }
  await write(conn, full);
  res.end();
}

export const HUGE_DEFAULT = 8 * 1024 * 1024;
const FILLER = 'x'.repeat(64 * 1024);

async function writeFiller(conn: Conn, bytes: number, wrap: (s: string) => string): Promise<boolean> {
  for (let left = bytes; left > 0; left -= FILLER.length) {
    if (!(await write(conn, wrap(left >= FILLER.length ? FILLER : FILLER.slice(0, left))))) return false;
  }
  return true;
}

/** A streamed chat completion (SSE framing of router.md), including the stream faults. Stops writing once the client is gone. */
export async function writeStream(conn: Conn, info: ChatInfo, reply: ScriptedReply, content: string, includeUsage: boolean): Promise<void> {
  const { res } = conn;
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', ...PROXY_HEADERS });
  if (!(await write(conn, event(streamChunk(info, { role: 'assistant', content: null }, null))))) return;
  const pieces = reply.chunks ?? splitContent(content);
  const fault = reply.fault;
  if (fault === 'huge') {
    if (!(await writeFiller(conn, reply.hugeBytes ?? HUGE_DEFAULT, (s) => event(streamChunk(info, { content: s }, null))))) return;
  } else {
    const upTo = fault === 'cut_sse' || fault === 'mid_stream_error' ? Math.ceil(pieces.length / 2) : pieces.length;
    for (let i = 0; i < upTo; i++) {
      if (reply.pauseAfter && i === reply.pauseAfter.chunks && !(await untilOrGone(conn, reply.pauseAfter.until))) return;
      if (reply.chunkDelayMs && !(await waitWithPings(conn, reply.chunkDelayMs))) return;
      if (!(await write(conn, event(streamChunk(info, { content: pieces[i] }, null))))) return;
    }
  }
  if (fault === 'cut_sse') {
    await write(conn, 'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"');
    return void res.end();
  }
  if (fault === 'mid_stream_error') {
    await write(conn, event(reply.errorBody ?? PEG_ERROR));
    return void res.end();
  }
  if (fault === 'malformed_json') {
    if (!(await write(conn, 'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"oops"}\n\n'))) return;
  }
  if (reply.chunkDelayMs && !(await waitWithPings(conn, reply.chunkDelayMs))) return;
  const { usage, timings } = usageAndTimings(info, reply, content);
  const toolCalls = wireToolCalls(reply);
  if (toolCalls && !(await write(conn, event(streamChunk(info, { tool_calls: toolCalls.map((c, index) => ({ index, ...c })) }, null))))) return;
  const finish = finishOf(reply);
  if (!(await write(conn, event(streamChunk(info, {}, finish, includeUsage ? undefined : { timings }))))) return;
  if (includeUsage && !(await write(conn, event({ choices: [], ...head(info), usage, timings })))) return;
  if (await write(conn, 'data: [DONE]\n\n')) res.end();
}

// ---------------------------------------------------------------- misc

/** Router-mode /v1/models entry; `meta` only while loaded (router.md). */
export function modelEntry(m: { id: string; status: string; nCtx?: number }) {
  const nCtx = m.nCtx ?? 4096;
  const entry: Record<string, unknown> = {
    id: m.id, aliases: [], tags: [], object: 'model', owned_by: 'llamacpp', created: Math.floor(Date.now() / 1000),
    status: {
      value: m.status,
      args: ['llama-server', '--host', '127.0.0.1', '--port', '0', '--alias', m.id, '--ctx-size', String(nCtx), '--model', `models/${m.id}.gguf`, '--parallel', '1'],
      preset: `[${m.id}]\nctx-size = ${nCtx}\n`,
    },
    architecture: { input_modalities: ['text'], output_modalities: ['text'] }, source: 'models_dir', can_remove: false,
  };
  if (m.status === 'loaded') entry.meta = { vocab_type: true, n_vocab: 32000, n_ctx: nCtx, n_ctx_train: 4096, n_embd: 8, n_params: 513048, size: 1026144, ftype: 'F16' };
  return entry;
}

export function parseError(body: unknown) {
  const lastRead = typeof body === 'string' ? body.slice(0, 1) : '';
  return errorJson(500, typeof body === 'string' || body === undefined
    ? `[json.exception.parse_error.101] parse error at line 1, column 1: syntax error while parsing value - invalid literal; last read: '${lastRead}'`
    : '[json.exception.type_error.302] type must be object', 'server_error');
}

export function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('close', () => resolve(req.complete ? Buffer.concat(parts).toString('utf8') : null));
    req.on('error', () => resolve(null));
  });
}

export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => { clearTimeout(timer); resolve(false); };
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(true); }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function randomId(n: number): string {
  const abc = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from(randomBytes(n), (b) => abc[b % abc.length]).join('');
}
