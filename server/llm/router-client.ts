/**
 * HTTP client for the llama.cpp router (router.md). One undici Pool with keep-alive; every model call
 * holds a slot of the router semaphore (decision 5) for its whole HTTP request; no whole-request
 * deadline, only connect and idle (headers / between body chunks) timeouts (decision 6).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { Pool, type Dispatcher } from 'undici';
import { createParser, type ParseError } from 'eventsource-parser';
import { HubError, isAbortError } from '../errors';
import { sanitize } from '../sanitize';
import { SlotSemaphore, abortErrorFrom } from './slots';
import {
  isLoadingModel,
  malformedRouterBody,
  mapRouterHttpError,
  mapTransportError,
  parseRouterErrorBody,
  routerBodyTooLarge,
  routerUnavailable,
  streamFailed,
  tokenizationUnavailable,
  truncate,
} from './router-errors';
import type {
  CallOptions,
  ChatMessage,
  ChatRequest,
  ChatResult,
  ModelInventory,
  RouterClient,
  StreamPiece,
  TokenizeResult,
  Usage,
} from './types';

export interface RouterClientOptions {
  /** Router base URL without `/v1`; a path prefix is kept (`http://h:1/prefix` → `/prefix/v1/...`). */
  baseUrl: string;
  /** Bearer key; the header is sent only when non-empty. */
  apiKey?: string;
  maxConcurrency: number;
  maxQueue: number;
  connectTimeoutMs: number;
  /** Longest wait for headers or between body chunks; 0 = no limit (decision 6). */
  idleTimeoutMs: number;
  discoveryTimeoutMs: number;
  /** Cap on a buffered (non-streamed) router body and on one SSE event; default 16 MiB. */
  maxResponseBytes?: number;
  /** `503 Loading model` retries and their spacing (router.md §4). */
  loadingRetries?: number;
  loadingRetryDelayMs?: number;
}

type ResponseBody = Dispatcher.ResponseData['body'];
type Json = Record<string, unknown>;
interface Slot {
  release: () => void;
  waitMs: number;
}

const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const utf8 = new TextEncoder();

export function createRouterClient(opts: RouterClientOptions): RouterClient {
  return new LlamaRouterClient(opts);
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0;
}

function toUsage(raw: unknown): Usage {
  const u = isObj(raw) ? raw : {};
  const prompt = count(u.prompt_tokens);
  const completion = count(u.completion_tokens);
  const usage: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: count(u.total_tokens) || prompt + completion };
  const details = u.prompt_tokens_details;
  if (isObj(details) && typeof details.cached_tokens === 'number') usage.cached_tokens = count(details.cached_tokens);
  return usage;
}

/** The router body: never `n` (n>1 corrupts usage, router.md pitfall 4); streams always ask for usage. */
function chatBody(req: ChatRequest, stream: boolean): Json {
  const body: Json = { ...req };
  for (const k of ['n', 'n_cmpl', 'stream', 'stream_options']) delete body[k];
  if (!stream) return { ...body, stream: false };
  return { ...body, stream: true, stream_options: { include_usage: true } };
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw malformedRouterBody(what);
  }
}

function toChatResult(json: unknown, queueWaitMs: number, routerMs: number): ChatResult {
  const choice = isObj(json) && Array.isArray(json.choices) ? json.choices[0] : undefined;
  if (!isObj(json) || !isObj(choice)) throw malformedRouterBody('chat completion (no choices)');
  const message = isObj(choice.message) ? choice.message : {};
  return {
    content: typeof message.content === 'string' ? message.content : '',
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    usage: toUsage(json.usage),
    model: typeof json.model === 'string' ? json.model : null,
    queueWaitMs,
    routerMs,
  };
}

/** Accumulates one streamed completion; each SSE `data:` goes through `take`. */
class StreamAccumulator {
  content = '';
  finishReason: string | null = null;
  usage: Usage = toUsage(undefined);
  model: string | null = null;
  sawDone = false;
  sawFinish = false;

  /** Returns the content delta of this chunk, if any; throws on an error frame or a malformed chunk. */
  take(data: string): string | null {
    if (this.sawDone) return null;
    if (data === '[DONE]') {
      this.sawDone = true;
      return null;
    }
    const chunk = parseJson(data, 'stream chunk');
    if (!isObj(chunk)) throw malformedRouterBody('stream chunk');
    if (chunk.error !== undefined) throw streamFailed(parseRouterErrorBody(data).message);
    if (typeof chunk.model === 'string') this.model = chunk.model;
    if (isObj(chunk.usage)) this.usage = toUsage(chunk.usage);
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => isObj(c) && (c.index ?? 0) === 0) : undefined;
    if (!isObj(choice)) return null;
    if (typeof choice.finish_reason === 'string') {
      this.finishReason = choice.finish_reason;
      this.sawFinish = true;
    }
    const delta = isObj(choice.delta) ? choice.delta.content : undefined;
    if (typeof delta !== 'string' || delta === '') return null;
    this.content += delta;
    return delta;
  }

  result(queueWaitMs: number, routerMs: number): ChatResult {
    return { content: this.content, finishReason: this.finishReason, usage: this.usage, model: this.model, queueWaitMs, routerMs };
  }
}

/** `/tokenize` answers `tokens` (ids, or `{id, piece}` with `with_pieces`), or a bare `count`/`n_tokens`. */
function toTokenizeResult(json: unknown): TokenizeResult {
  if (!isObj(json)) throw tokenizationUnavailable('The model router sent a malformed /tokenize body.');
  if (Array.isArray(json.tokens)) return fromTokenList(json.tokens);
  const n = typeof json.count === 'number' ? json.count : json.n_tokens;
  if (typeof n === 'number' && Number.isInteger(n) && n >= 0) return { count: n };
  throw tokenizationUnavailable('The model router sent a /tokenize body without tokens or a count.');
}

function fromTokenList(list: unknown[]): TokenizeResult {
  if (list.every((t) => typeof t === 'number')) return { count: list.length, tokens: list as number[] };
  const tokens: number[] = [];
  const pieces: Uint8Array[] = [];
  for (const t of list) {
    if (!isObj(t) || typeof t.id !== 'number') throw tokenizationUnavailable('The model router sent a malformed /tokenize token.');
    tokens.push(t.id);
    pieces.push(toPieceBytes(t.piece));
  }
  return { count: tokens.length, tokens, pieces };
}

/** A piece is a string, or a byte array when it is not valid UTF-8 on its own (router.md §1). */
function toPieceBytes(piece: unknown): Uint8Array {
  if (typeof piece === 'string') return utf8.encode(piece);
  if (Array.isArray(piece) && piece.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return Uint8Array.from(piece as number[]);
  throw tokenizationUnavailable('The model router sent a /tokenize piece that is neither text nor bytes.');
}

function unreachableInventory(): ModelInventory {
  return { reachable: false, ids: [], entries: {} };
}

/** Router mode lists every known model whatever its `status.value` (unloaded ones autoload). */
function toInventory(json: unknown): ModelInventory {
  if (!isObj(json) || !Array.isArray(json.data)) return unreachableInventory();
  const ids: string[] = [];
  const entries: Record<string, Json> = {};
  for (const entry of json.data) {
    if (!isObj(entry) || typeof entry.id !== 'string' || entry.id === '' || entry.id in entries) continue;
    ids.push(entry.id);
    entries[entry.id] = sanitize(entry) as Json;
  }
  return { reachable: true, ids, entries };
}

function ok(status: number): boolean {
  return status >= 200 && status < 300;
}

class LlamaRouterClient implements RouterClient {
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly semaphore: SlotSemaphore;
  private readonly maxBytes: number;
  private readonly discoveryTimeoutMs: number;
  private readonly loadingRetries: number;
  private readonly loadingRetryDelayMs: number;
  /** `/v1/chat/completions/input_tokens` answered 404 once: this router lacks it (remembered per process). */
  private inputTokensAbsent = false;

  constructor(opts: RouterClientOptions) {
    const url = new URL(opts.baseUrl);
    this.baseUrl = opts.baseUrl;
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.semaphore = new SlotSemaphore(opts.maxConcurrency, opts.maxQueue);
    this.maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.discoveryTimeoutMs = opts.discoveryTimeoutMs;
    this.loadingRetries = opts.loadingRetries ?? 5;
    this.loadingRetryDelayMs = opts.loadingRetryDelayMs ?? 500;
    this.headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (opts.apiKey) this.headers.authorization = `Bearer ${opts.apiKey}`;
    // undici's 300 s defaults would cut long generations: the idle timeout replaces both (0 disables).
    this.pool = new Pool(url.origin, {
      connectTimeout: opts.connectTimeoutMs,
      headersTimeout: opts.idleTimeoutMs,
      bodyTimeout: opts.idleTimeoutMs,
    });
  }

  async chat(req: ChatRequest, opts: CallOptions = {}): Promise<ChatResult> {
    const slot = await this.takeSlot(opts);
    const started = performance.now();
    try {
      const body = await this.openChat(chatBody(req, false), opts.signal, req.model);
      const text = await this.readText(body, opts.signal, true);
      return toChatResult(parseJson(text, 'chat completion'), slot.waitMs, performance.now() - started);
    } finally {
      slot.release();
    }
  }

  async *chatStream(req: ChatRequest, opts: CallOptions = {}): AsyncGenerator<StreamPiece> {
    const slot = await this.takeSlot(opts);
    // Our own controller so that a consumer's early return() can abort the router request.
    const local = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, local.signal]) : local.signal;
    const started = performance.now();
    let body: ResponseBody | undefined;
    try {
      body = await this.openChat(chatBody(req, true), signal, req.model, opts.signal);
      const acc = new StreamAccumulator();
      for await (const data of this.sseData(body, opts.signal)) {
        const delta = acc.take(data);
        if (delta !== null) yield { kind: 'delta', content: delta };
      }
      if (!acc.sawDone && !acc.sawFinish) throw streamFailed('the stream ended before the completion finished');
      const result = acc.result(slot.waitMs, performance.now() - started);
      slot.release(); // the router request is over: free the slot before the consumer handles `done`
      yield { kind: 'done', result };
    } finally {
      if (!body?.readableEnded) {
        local.abort();
        body?.destroy();
      }
      slot.release();
    }
  }

  async listModels(opts: { signal?: AbortSignal } = {}): Promise<ModelInventory> {
    const timeout = AbortSignal.timeout(this.discoveryTimeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    try {
      const res = await this.send('GET', '/v1/models', undefined, signal, this.discoveryTimeoutMs);
      const text = await this.readText(res.body, signal, true);
      return ok(res.statusCode) ? toInventory(JSON.parse(text)) : unreachableInventory();
    } catch {
      return unreachableInventory(); // discovery never throws: unreachable is a state, not an error
    }
  }

  async tokenize(body: Parameters<RouterClient['tokenize']>[0], opts: CallOptions = {}): Promise<TokenizeResult> {
    return toTokenizeResult(await this.auxJson('/tokenize', body, opts.signal));
  }

  async applyTemplate(
    body: { model: string; messages: ChatMessage[]; tools?: unknown; tool_choice?: unknown },
    opts: CallOptions = {},
  ): Promise<string> {
    const json = await this.auxJson('/apply-template', body, opts.signal);
    if (!isObj(json) || typeof json.prompt !== 'string') throw tokenizationUnavailable('The model router sent a malformed /apply-template body.');
    return json.prompt;
  }

  async inputTokens(req: ChatRequest, opts: CallOptions = {}): Promise<number | null> {
    if (this.inputTokensAbsent) return null;
    const body = chatBody(req, false);
    delete body.stream;
    const path = '/v1/chat/completions/input_tokens';
    const res = await this.auxCall(path, body, opts.signal);
    if (res.status === 404) {
      this.inputTokensAbsent = true;
      return null;
    }
    const json = this.auxParse(path, res);
    const n = isObj(json) ? json.input_tokens : undefined;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw tokenizationUnavailable(`The model router sent a malformed ${path} body.`);
    return n;
  }

  slotState(): { inFlight: number; queued: number; capacity: number; maxQueue: number } {
    return this.semaphore.state();
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  // ---- slots -------------------------------------------------------------------------------

  /** Acquires a slot and mirrors it into the caller's evidence; the returned release is idempotent. */
  private async takeSlot(opts: CallOptions): Promise<Slot> {
    const t0 = performance.now();
    const free = await this.semaphore.acquire(opts.signal);
    const waitMs = performance.now() - t0;
    const evidence = opts.slots;
    if (evidence) {
      evidence.acquisitions++;
      evidence.active++;
    }
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      free();
      if (evidence) {
        evidence.releases++;
        evidence.active--;
      }
    };
    // Granted in the same tick the caller gave up: hand the slot straight back.
    if (opts.signal?.aborted) {
      release();
      throw abortErrorFrom(opts.signal);
    }
    return { release, waitMs };
  }

  // ---- HTTP --------------------------------------------------------------------------------

  private send(method: 'GET' | 'POST', path: string, body: unknown, signal?: AbortSignal, timeoutMs?: number): Promise<Dispatcher.ResponseData> {
    return this.pool.request({
      method,
      path: this.prefix + path,
      headers: this.headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      ...(timeoutMs ? { headersTimeout: timeoutMs, bodyTimeout: timeoutMs } : {}),
    });
  }

  /** Turns any failure into an AbortError (caller gave up), a HubError as is, or a mapped transport error. */
  private fail(err: unknown, callerSignal: AbortSignal | undefined, midStream: boolean): unknown {
    if (callerSignal?.aborted) return abortErrorFrom(callerSignal);
    if (err instanceof HubError || isAbortError(err)) return err;
    return mapTransportError(err, this.baseUrl, midStream);
  }

  /** Buffers a body up to the byte cap; transport errors are mapped (mid-response when `midStream`). */
  private async readText(body: ResponseBody, callerSignal: AbortSignal | undefined, midStream: boolean): Promise<string> {
    try {
      return await readCapped(body, this.maxBytes);
    } catch (err) {
      throw this.fail(err, callerSignal, midStream);
    }
  }

  /** POSTs a chat body; retries `503 Loading model`; returns the 2xx body, else throws the mapped error. */
  private async openChat(body: Json, signal: AbortSignal | undefined, model: string, callerSignal = signal): Promise<ResponseBody> {
    for (let attempt = 1; ; attempt++) {
      let res: Dispatcher.ResponseData;
      try {
        res = await this.send('POST', '/v1/chat/completions', body, signal);
      } catch (err) {
        throw this.fail(err, callerSignal, false);
      }
      if (ok(res.statusCode)) return res.body;
      const text = await this.readText(res.body, callerSignal, false);
      const parsed = parseRouterErrorBody(text);
      if (!isLoadingModel(res.statusCode, parsed)) throw mapRouterHttpError(res.statusCode, text, res.headers, model);
      if (attempt > this.loadingRetries) throw routerUnavailable(attempt);
      await delay(this.loadingRetryDelayMs, undefined, { signal }).catch((err: unknown) => {
        throw this.fail(err, callerSignal, false);
      });
    }
  }

  /** Yields SSE `data:` payloads; comment pings are ignored by the parser. */
  private async *sseData(body: ResponseBody, callerSignal: AbortSignal | undefined): AsyncGenerator<string> {
    const queue: string[] = [];
    let parseError: ParseError | null = null;
    const parser = createParser({
      onEvent: (e) => queue.push(e.data),
      onError: (e) => (parseError = parseError ?? e),
      maxBufferSize: this.maxBytes,
    });
    const decoder = new TextDecoder();
    const iterator = body[Symbol.asyncIterator]();
    for (;;) {
      let step: IteratorResult<Buffer>;
      try {
        step = await iterator.next();
      } catch (err) {
        throw this.fail(err, callerSignal, true);
      }
      parser.feed(step.done ? decoder.decode() + '\n\n' : decoder.decode(step.value, { stream: true }));
      if (parseError) throw streamFailed(`unreadable event stream (${(parseError as ParseError).type})`);
      while (queue.length > 0) yield queue.shift() as string;
      if (step.done) return;
    }
  }

  /** An auxiliary POST (no slot): one retry on a transport error, never on HTTP errors or abort (§5.7). */
  private async auxCall(path: string, body: unknown, signal?: AbortSignal): Promise<{ status: number; text: string }> {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await this.send('POST', path, body, signal);
        return { status: res.statusCode, text: await readCapped(res.body, this.maxBytes) };
      } catch (err) {
        if (signal?.aborted) throw abortErrorFrom(signal);
        if (attempt < 2 && !(err instanceof HubError) && !isAbortError(err)) continue;
        const mapped = this.fail(err, signal, false);
        throw mapped instanceof HubError ? tokenizationUnavailable(`The model router's ${path} is unavailable: ${mapped.message}`) : mapped;
      }
    }
  }

  private auxParse(path: string, res: { status: number; text: string }): unknown {
    if (!ok(res.status)) {
      const msg = parseRouterErrorBody(res.text).message;
      throw tokenizationUnavailable(`The model router's ${path} answered HTTP ${res.status}${msg ? `: ${truncate(msg)}` : ''}`);
    }
    try {
      return JSON.parse(res.text);
    } catch {
      throw tokenizationUnavailable(`The model router sent a malformed ${path} body.`);
    }
  }

  private async auxJson(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.auxParse(path, await this.auxCall(path, body, signal));
  }
}

/** Reads a whole body, refusing more than `limit` bytes (a runaway router must not exhaust memory). */
async function readCapped(body: ResponseBody, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      body.destroy();
      throw routerBodyTooLarge(limit);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
