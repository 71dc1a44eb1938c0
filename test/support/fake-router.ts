/**
 * A scriptable FAKE llama.cpp `llama-server` in router mode, for integration tests and benchmarks.
 * It reproduces the endpoints, shapes and quirks recorded in shared/spec/router.md (§1): router-mode /v1/models,
 * llama.cpp chat completion bodies and SSE framing, error shapes, auth, tokenize/apply-template/input_tokens, and
 * scripted faults (refused sockets, malformed bodies, cut streams, mid-stream errors, hangs, huge bodies).
 *
 * Usage:
 *   const fake = new FakeRouter({ models: ['med-small'] });
 *   const base = await fake.start();
 *   fake.script({ match: { contains: 'aspirin' }, content: '{"answer":"…"}', times: 1 });
 *   … await fake.stop();
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  type ChatInfo, type Conn, contentText, errorJson, fakeChat, type FakeTemplate, fakeTokenId, fakeTokenize, modelEntry, parseError, PEG_ERROR,
  randomId, readBody, sleep, writeBlocking, writeStream,
} from './fake-router-sse';
import { RouterLedger } from './fake-router-ledger';

export { fakeTokenize, fakeApplyTemplate, fakeGemma4Template, fakeTokenizeSpecial, fakeChat, GEMMA4_SPECIAL_TOKENS, type FakeTemplate } from './fake-router-sse';

export interface RecordedRequest { method: string; path: string; query: Record<string, string>; headers: Record<string, string | string[] | undefined>; body: any; at: number }

export interface ScriptedReply {
  /**
   * Which requests this reply answers (all given conditions must hold): `contains` = substring of JSON.stringify(body.messages)
   * (or of the messages' plain text joined), `model` = exact body.model, `test` = predicate. Without `path` a reply answers only
   * chat completions; with `path` (exact URL path) it answers that route, where delay/status/errorBody/fault apply and the
   * normal handler answers otherwise.
   */
  match?: { contains?: string; model?: string; path?: string; test?: (req: RecordedRequest) => boolean };
  /** assistant content (blocking) or joined stream content; default: `chunks` joined, else the default reply's content */
  content?: string;
  /** content computed from the request (a checker that answers what it was asked); wins over `content` */
  reply?: (req: RecordedRequest) => string;
  /** explicit stream deltas (default: content split into 4-code-point pieces) */
  chunks?: string[];
  finishReason?: string;
  /**
   * Tool calls the assistant makes (llama.cpp wire: `message.tool_calls`, or one `delta.tool_calls` chunk when streaming;
   * `finish_reason` defaults to `tool_calls`). `arguments` given as an object is sent as its JSON text; a string is sent as is
   * (so malformed arguments can be scripted). `id` defaults to a random llama.cpp-style id.
   */
  toolCalls?: Array<{ name: string; arguments: string | Record<string, unknown>; id?: string }>;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** before headers */
  delayMs?: number;
  /** answered only once this settles (a test holds a request open while it looks around) */
  hold?: Promise<unknown>;
  /** between stream chunks (role → content… → finish); an SSE comment ping `:` is sent per full second of waiting */
  chunkDelayMs?: number;
  /**
   * A stream that stops mid-generation: after `chunks` content pieces it waits for `until` (or the client to go)
   * before writing the rest — a test holds a generation open, its first tokens delivered, while it looks around.
   */
  pauseAfter?: { chunks: number; until: Promise<unknown> };
  /** HTTP error reply: `status` (default 500 when only errorBody is given) with `errorBody` (default llama.cpp shape); a string body is sent raw */
  status?: number; errorBody?: unknown;
  fault?: 'refuse' | 'malformed_json' | 'cut_sse' | 'mid_stream_error' | 'hang' | 'huge';
  /** size of the 'huge' filler (default 8 MiB) */
  hugeBytes?: number;
  /** how many requests it answers (default unlimited) */
  times?: number;
}

type ModelStatus = 'loaded' | 'unloaded' | 'loading' | 'sleeping';

export interface FakeRouterOptions {
  /**
   * Router-mode /v1/models entries (status default 'loaded'; nCtx default 4096 — the prompt is checked against nCtx
   * (400 exceed_context_size_error) only when nCtx is given). When omitted, /v1/models lists one loaded model
   * 'fake-model' and any model name is accepted.
   */
  models?: Array<string | { id: string; status?: ModelStatus; nCtx?: number }>;
  /** every route but /health and /v1/health needs `Authorization: Bearer K` (or `X-Api-Key: K` without Authorization); comma-separated list allowed */
  apiKey?: string;
  /** /v1/chat/completions/input_tokens present (default true); false → 404 */
  inputTokens?: boolean;
  /** /tokenize, /detokenize and /apply-template present (default true); false → 404 */
  tokenize?: boolean;
  /** used when no script matches (default: content '{"answer":"","citations":[],"blocks":[]}') */
  defaultReply?: ScriptedReply;
  /** (default true) with `models` configured, a model not listed → 400 "model 'x' not found", a missing one → 400 "model name is missing from the request" */
  unknownModel400?: boolean;
  /**
   * The chat template every model renders (default `llama2`: `[INST]`, no special tokens). `gemma4` renders Gemma 4's
   * `<|turn>` turns, whose markers are special tokens: one token each in chats, input_tokens and `/tokenize` with
   * `parse_special` (its default), and plain text with `parse_special:false`.
   */
  template?: FakeTemplate;
}

const DEFAULT_CONTENT = '{"answer":"","citations":[],"blocks":[]}';
const CHAT_PATHS = new Set(['/v1/chat/completions', '/chat/completions']);
const PUBLIC_PATHS = new Set(['/health', '/v1/health']);
interface ModelSpec { id: string; status: ModelStatus; nCtx?: number }
interface Ctx extends Conn { req: IncomingMessage; rec: RecordedRequest; badJson: boolean }

export class FakeRouter {
  readonly requests: RecordedRequest[] = [];
  /** What was open at once: chats, the models requests named, overlaps (fake-router-ledger.ts). */
  readonly ledger = new RouterLedger();
  private scripts: Array<{ reply: ScriptedReply; left: number }> = [];
  private models: ModelSpec[] = [];
  private modelsConfigured = false;
  private server?: http.Server;
  private readonly sockets = new Set<Socket>();
  private accepted = 0;
  private url = '';
  private idleWaiters: Array<() => void> = [];
  /** last prompt token ids per model, to report prompt-cache hits like llama.cpp (common prefix, last token re-evaluated) */
  private promptCache = new Map<string, number[]>();
  private vocab = new Map<number, string>();
  private counters = { prompt: 0, predicted: 0 };

  private readonly chatTemplate: ReturnType<typeof fakeChat>;

  constructor(private readonly opts: FakeRouterOptions = {}) {
    this.setModels(opts.models);
    this.chatTemplate = fakeChat(opts.template ?? 'llama2');
  }

  async start(): Promise<string> {
    if (this.server) return this.url;
    const server = http.createServer((req, res) => void this.handle(req, res));
    server.on('connection', (s: Socket) => { this.accepted++; this.sockets.add(s); s.on('close', () => this.sockets.delete(s)); });
    await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', () => resolve()); });
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    server.closeAllConnections();
    await closed;
    await this.waitIdle(1000).catch(() => undefined); // 'close' of the destroyed exchanges comes a tick later
  }

  /** TCP connections accepted since start (a connection opened ahead of a call counts before any request). */
  get connectionsAccepted(): number {
    return this.accepted;
  }

  get baseUrl(): string {
    if (!this.url) throw new Error('FakeRouter: start() it first');
    return this.url;
  }

  script(...replies: ScriptedReply[]): this {
    for (const reply of replies) this.scripts.push({ reply, left: reply.times ?? Infinity });
    return this;
  }

  reset(): void {
    this.scripts = [];
    this.requests.length = 0;
    this.ledger.reset();
    this.promptCache.clear();
  }

  setModels(models: FakeRouterOptions['models']): void {
    this.modelsConfigured = models !== undefined;
    this.models = (models ?? ['fake-model']).map((m) => (typeof m === 'string' ? { id: m, status: 'loaded' } : { id: m.id, status: m.status ?? 'loaded', nCtx: m.nCtx }));
  }

  chatRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && CHAT_PATHS.has(r.path));
  }

  get openChats(): number { return this.ledger.chatsOpen; }
  get maxConcurrentChats(): number { return this.ledger.maxChats; }

  waitIdle(timeoutMs = 5000): Promise<void> {
    if (this.openChats === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => { clearTimeout(timer); resolve(); };
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== done);
        reject(new Error(`FakeRouter.waitIdle: ${this.openChats} chat request(s) still open after ${timeoutMs} ms`));
      }, timeoutMs);
      this.idleWaiters.push(done);
    });
  }

  // ------------------------------------------------------------------ request handling

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let closed = false;
    const ac = new AbortController();
    res.on('close', () => { closed = true; ac.abort(); });
    res.on('error', () => undefined);
    req.on('error', () => undefined);
    const raw = await readBody(req);
    if (raw === null) return;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let body: any;
    let badJson = false;
    if (raw.length > 0) {
      try { body = JSON.parse(raw); } catch { body = raw; badJson = true; }
    }
    const rec: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: { ...req.headers }, body, at: Date.now() };
    this.requests.push(rec);
    const isChat = rec.method === 'POST' && CHAT_PATHS.has(rec.path);
    if (!closed) {
      const answered = this.ledger.arrived(rec, isChat);
      res.once('close', () => {
        answered();
        if (isChat) this.chatClosed();
      });
    }
    const ctx: Ctx = {
      req, res, rec, badJson,
      get closed() { return closed; },
      sleep: (ms) => sleep(ms, ac.signal),
    };
    res.setHeader('Server', 'llama.cpp');
    res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '');
    try {
      if (!this.authorized(req, rec.path)) return sendJson(ctx, 401, { error: { message: 'Invalid API Key', type: 'authentication_error', code: 401 } });
      if (!isChat) {
        const scripted = this.pick(rec, false);
        if (scripted && (await this.applyScripted(ctx, scripted))) return;
      }
      await this.route(ctx, isChat);
    } catch (err) {
      if (!res.headersSent && !closed) sendJson(ctx, 500, errorJson(500, `fake router: ${(err as Error).message}`));
      else res.destroy();
    }
  }

  private chatClosed(): void {
    if (this.openChats === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private authorized(req: IncomingMessage, path: string): boolean {
    if (!this.opts.apiKey || PUBLIC_PATHS.has(path)) return true;
    const keys = this.opts.apiKey.split(',').map((k) => k.trim());
    const auth = req.headers.authorization;
    if (auth !== undefined) return auth.startsWith('Bearer ') && keys.includes(auth.slice(7));
    const x = req.headers['x-api-key'];
    return typeof x === 'string' && keys.includes(x);
  }

  private pick(rec: RecordedRequest, isChat: boolean): ScriptedReply | undefined {
    for (const s of this.scripts) {
      if (s.left <= 0) continue;
      const m = s.reply.match ?? {};
      if (m.path !== undefined ? m.path !== rec.path : !isChat) continue;
      if (m.model !== undefined && rec.body?.model !== m.model) continue;
      if (m.contains !== undefined && !messagesContain(rec.body, m.contains)) continue;
      if (m.test && !m.test(rec)) continue;
      s.left--;
      return s.reply;
    }
    return undefined;
  }

  /** Delay, then the parts of a reply every route shares: faults and error status. True when the reply was sent. */
  private async applyScripted(ctx: Ctx, reply: ScriptedReply): Promise<boolean> {
    if (reply.delayMs && !(await ctx.sleep(reply.delayMs))) return true;
    if (reply.hold) await reply.hold;
    if (reply.fault === 'refuse') { ctx.req.socket.destroy(); return true; }
    if (reply.fault === 'hang') { await ctx.sleep(2 ** 31 - 1); return true; }
    if ((reply.status !== undefined && reply.status >= 400) || (reply.errorBody !== undefined && reply.fault !== 'mid_stream_error')) {
      const status = reply.status ?? 500;
      if (typeof reply.errorBody === 'string') { ctx.res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }); ctx.res.end(reply.errorBody); }
      else sendJson(ctx, status, reply.errorBody ?? errorJson(status));
      return true;
    }
    if (CHAT_PATHS.has(ctx.rec.path) && ctx.rec.method === 'POST') return false; // chat faults are written by the chat writers
    if (reply.fault === 'mid_stream_error') { sendJson(ctx, 500, reply.errorBody ?? PEG_ERROR); return true; }
    if (reply.fault === 'malformed_json' || reply.fault === 'cut_sse' || reply.fault === 'huge') {
      ctx.res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
      if (reply.fault === 'huge') { ctx.res.end(`{"data":"${'x'.repeat(reply.hugeBytes ?? 8 * 1024 * 1024)}"}`); return true; }
      ctx.res.write('{"data":[{"id":"');
      if (reply.fault === 'cut_sse') ctx.res.destroy(); else ctx.res.end();
      return true;
    }
    return false;
  }

  private async route(ctx: Ctx, isChat: boolean): Promise<void> {
    const { rec } = ctx;
    const tokenizeOn = this.opts.tokenize !== false;
    const route = `${rec.method} ${rec.path}`;
    if (isChat) return this.chat(ctx);
    switch (route) {
      case 'GET /health': case 'GET /v1/health':
        return sendJson(ctx, 200, { status: 'ok' });
      case 'GET /v1/models': case 'GET /models':
        return sendJson(ctx, 200, { data: this.models.map((m) => modelEntry(m)), object: 'list' });
      case 'GET /props': case 'GET /slots': case 'GET /metrics':
        return this.perModelGet(ctx);
      case 'POST /models/load': case 'POST /models/unload':
      case 'POST /tokenize': case 'POST /detokenize': case 'POST /apply-template': case 'POST /v1/chat/completions/input_tokens': {
        if ((!tokenizeOn && /tokenize|apply-template/.test(rec.path)) || (this.opts.inputTokens === false && rec.path.endsWith('/input_tokens'))) break;
        if (ctx.badJson || !isObject(rec.body)) return sendJson(ctx, 500, parseError(rec.body));
        const b = rec.body;
        if (rec.path.startsWith('/models/')) {
          const m = this.models.find((x) => x.id === b.model);
          if (!m) return sendJson(ctx, 400, errorJson(400, `model '${String(b.model)}' not found`));
          m.status = rec.path.endsWith('/load') ? 'loaded' : 'unloaded';
          return sendJson(ctx, 200, { success: true });
        }
        const modelErr = this.modelError(b.model);
        if (modelErr) return sendJson(ctx, 400, modelErr);
        if (rec.path === '/tokenize') {
          const pieces = this.chatTemplate.tokenize(typeof b.content === 'string' ? b.content : '', b.parse_special !== false).map((p) => ({ id: this.tokenId(p), piece: p }));
          if (b.add_special === true) pieces.unshift({ id: 1, piece: '<s>' });
          return sendJson(ctx, 200, { tokens: b.with_pieces === true ? pieces : pieces.map((p) => p.id) });
        }
        if (rec.path === '/detokenize') {
          const ids: unknown[] = Array.isArray(b.tokens) ? b.tokens : [];
          return sendJson(ctx, 200, { content: ids.map((id) => this.vocab.get(Number(id)) ?? '').join('') });
        }
        if (!Array.isArray(b.messages)) return sendJson(ctx, 400, errorJson(400, "'messages' is required"));
        const prompt = this.chatTemplate.render(b.messages);
        if (rec.path === '/apply-template') return sendJson(ctx, 200, { prompt });
        return sendJson(ctx, 200, { input_tokens: this.chatTemplate.tokenize(prompt).length, object: 'response.input_tokens' });
      }
    }
    sendJson(ctx, 404, errorJson(404, 'File Not Found'));
  }

  /** Router GETs routed by `?model=`: /props without it describes the router; /slots and /metrics need it. */
  private perModelGet(ctx: Ctx): void {
    const { path, query } = ctx.rec;
    if (query.model === undefined) {
      if (path === '/props') return sendJson(ctx, 200, { role: 'router', max_instances: 4, models_autoload: true, model_alias: 'llama-server', model_path: 'none', build_info: 'b0-unknown' });
      return sendJson(ctx, 400, errorJson(400, 'model name is missing from the request'));
    }
    const m = this.models.find((x) => x.id === query.model);
    if (!m && this.modelsConfigured) return sendJson(ctx, 400, errorJson(400, `model '${query.model}' not found`));
    if (m) m.status = 'loaded'; // GET /props?model= autoloads (router.md)
    const nCtx = m?.nCtx ?? 4096;
    if (path === '/slots') return sendJson(ctx, 200, [0, 1].map((id) => ({ id, n_ctx: nCtx, speculative: false, is_processing: false, id_task: -1 })));
    if (path === '/metrics') {
      ctx.res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
      ctx.res.end(`llamacpp:prompt_tokens_total ${this.counters.prompt}\nllamacpp:tokens_predicted_total ${this.counters.predicted}\nllamacpp:requests_processing ${this.openChats}\nllamacpp:requests_deferred 0\n`);
      return;
    }
    sendJson(ctx, 200, {
      default_generation_settings: { params: { chat_format: 'Content-only', generation_prompt: '' }, n_ctx: nCtx },
      total_slots: 2, model_alias: query.model, model_ftype: 'F16', model_path: `models/${query.model}.gguf`,
      modalities: { vision: false, video: false, audio: false }, endpoint_slots: true, endpoint_props: false, endpoint_metrics: true,
      chat_template: '{%- for message in messages -%}…', chat_template_caps: { supports_system_role: true, supports_tools: false },
      bos_token: '<s>', eos_token: '</s>', build_info: 'b0-unknown', is_sleeping: false,
    });
  }

  private async chat(ctx: Ctx): Promise<void> {
    const { rec } = ctx;
    const body = rec.body;
    if (ctx.badJson || !isObject(body)) return sendJson(ctx, 500, parseError(body));
    const modelErr = this.modelError(body.model);
    if (modelErr) return sendJson(ctx, 400, modelErr);
    if (body.messages === undefined) return sendJson(ctx, 400, errorJson(400, "'messages' is required"));
    if (!Array.isArray(body.messages)) return sendJson(ctx, 400, errorJson(400, "Expected 'messages' to be an array"));
    const ids = this.chatTemplate.tokenize(this.chatTemplate.render(body.messages)).map((p) => this.tokenId(p));
    const model = this.models.find((m) => m.id === body.model);
    if (model?.nCtx !== undefined && ids.length > model.nCtx) {
      return sendJson(ctx, 400, errorJson(400, `request (${ids.length} tokens) exceeds the available context size (${model.nCtx} tokens), try increasing it`,
        'exceed_context_size_error', { n_prompt_tokens: ids.length, n_ctx: model.nCtx }));
    }
    const fallback = this.opts.defaultReply ?? { content: DEFAULT_CONTENT };
    const reply = this.pick(rec, true) ?? fallback;
    if (await this.applyScripted(ctx, reply)) return;
    if (ctx.closed) return;
    if (model && model.status !== 'loaded') model.status = 'loaded'; // autoload on first request
    const modelName = typeof body.model === 'string' ? body.model : (this.models[0]?.id ?? 'fake-model');
    const info: ChatInfo = {
      id: `chatcmpl-${randomId(32)}`, created: Math.floor(Date.now() / 1000), model: modelName,
      promptTokens: ids.length, cachedTokens: this.cacheHit(modelName, ids, body.cache_prompt !== false),
    };
    // A tool-call reply writes no text unless scripted to.
    const unscripted = reply.toolCalls?.length ? '' : (fallback.content ?? DEFAULT_CONTENT);
    const content = reply.reply?.(rec) ?? reply.content ?? reply.chunks?.join('') ?? unscripted;
    this.counters.prompt += ids.length - info.cachedTokens;
    this.counters.predicted += fakeTokenize(content).length;
    const conn: Conn = ctx;
    if (reply.fault === 'mid_stream_error' && body.stream !== true) return sendJson(ctx, 500, reply.errorBody ?? PEG_ERROR);
    if (body.stream === true) await writeStream(conn, info, reply, content, body.stream_options?.include_usage === true);
    else await writeBlocking(conn, info, reply, content);
  }

  private modelError(name: unknown): { error: Record<string, unknown> } | undefined {
    if (!this.modelsConfigured || this.opts.unknownModel400 === false) return undefined;
    if (typeof name !== 'string' || name === '') return errorJson(400, 'model name is missing from the request');
    if (!this.models.some((m) => m.id === name)) return errorJson(400, `model '${name}' not found`);
    return undefined;
  }

  private cacheHit(model: string, ids: number[], usesCache: boolean): number {
    const prev = this.promptCache.get(model) ?? [];
    this.promptCache.set(model, ids);
    if (!usesCache) return 0;
    let n = 0;
    while (n < prev.length && n < ids.length && prev[n] === ids[n]) n++;
    return Math.max(0, Math.min(n, ids.length - 1));
  }

  private tokenId(piece: string): number {
    const id = fakeTokenId(piece);
    this.vocab.set(id, piece);
    return id;
  }
}

// ------------------------------------------------------------------ helpers

function messagesContain(body: any, needle: string): boolean {
  const msgs = isObject(body) ? body.messages : undefined;
  if (msgs === undefined) return false;
  if ((JSON.stringify(msgs) ?? '').includes(needle)) return true;
  return Array.isArray(msgs) && msgs.map((m) => contentText(isObject(m) ? m.content : m)).join('\n').includes(needle);
}

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sendJson(ctx: Conn, status: number, obj: unknown): void {
  if (ctx.closed || ctx.res.headersSent) return;
  const body = JSON.stringify(obj);
  ctx.res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  ctx.res.end(body);
}

