/**
 * HTTP client for the llama.cpp router (router.md). One undici Pool with keep-alive; every model call
 * holds a slot of the router semaphore (decision 5) for its whole HTTP request, and every request naming
 * a model passes the same admission (router-admission.ts); no whole-request deadline, only connect and
 * idle (headers / between body chunks) timeouts (decision 6).
 */
import { finished } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { closePool, Pool } from './undici-pool';
import { warmConnector, type WarmConnector } from './warm-connector';
import { linkedAbort } from './abort-link';
import { createParser } from 'eventsource-parser';
import { HubError, isAbortError, RouterBusyError, RouterTimeoutError } from '../errors';
import { trimEndChars } from '../text-scan';
import { encodeJsonBody, prepareBody } from './shared-block';
import { LoopSlice } from '../event-loop';
import { SlotSemaphore, abortErrorFrom, withEvidence, type Release } from './slots';
import { RouterAdmission } from './router-admission';
import { markUndelivered, undeliveredStatus } from './undelivered';
import {
  isLoadingModel, mapRouterHttpError, mapTransportError, parseRouterErrorBody,
  routerBodyTooLarge, routerUnavailable, streamFailed, tokenizationUnavailable, truncate,
} from './router-errors';
import {
  StreamAccumulator, chatBody, isObj, parseJson, toChatResult, toInventory, toTokenizeResult, unreachableInventory,
} from './router-responses';
import type { CallOptions, ChatMessage, ChatRequest, ChatResult, ModelInventory, RouterClient, StreamPiece, TokenizeResult } from './types';

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
interface Slot { release: () => void; waitMs: number }

const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const CLOSE_GRACE_MS = 2000;

export function createRouterClient(opts: RouterClientOptions): RouterClient {
  return new LlamaRouterClient(opts);
}

function ok(status: number): boolean {
  return status >= 200 && status < 300;
}

class LlamaRouterClient implements RouterClient {
  private readonly pool: Pool;
  private readonly connector: WarmConnector;
  private readonly prefix: string;
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly semaphore: SlotSemaphore;
  private readonly admission: RouterAdmission;
  private readonly maxBytes: number;
  private readonly discoveryTimeoutMs: number;
  private readonly loadingRetries: number;
  private readonly loadingRetryDelayMs: number;
  /** `/v1/chat/completions/input_tokens` answered 404 once: this router lacks it (remembered per process). */
  private inputTokensAbsent = false;

  constructor(opts: RouterClientOptions) {
    const url = new URL(opts.baseUrl);
    this.baseUrl = opts.baseUrl;
    this.prefix = trimEndChars(url.pathname, '/'); // not `/\/+$/`: quadratic on a run of slashes
    this.semaphore = new SlotSemaphore(opts.maxConcurrency, opts.maxQueue);
    this.admission = new RouterAdmission(this.semaphore);
    this.maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.discoveryTimeoutMs = opts.discoveryTimeoutMs;
    this.loadingRetries = opts.loadingRetries ?? 5;
    this.loadingRetryDelayMs = opts.loadingRetryDelayMs ?? 500;
    this.headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (opts.apiKey) this.headers.authorization = `Bearer ${opts.apiKey}`;
    this.connector = warmConnector(new URL(url.origin), { timeoutMs: opts.connectTimeoutMs });
    // undici's 300 s defaults would cut long generations: the idle timeout replaces both (0 disables).
    this.pool = new Pool(url.origin, {
      connect: this.connector.connect,
      headersTimeout: opts.idleTimeoutMs,
      bodyTimeout: opts.idleTimeoutMs,
    });
  }

  async chat(req: ChatRequest, opts: CallOptions = {}): Promise<ChatResult> {
    const slot = await this.takeSlot(req.model, opts);
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
    const slot = await this.takeSlot(req.model, opts);
    // Our own controller so that a consumer's early return() can abort the router request.
    const local = linkedAbort(opts.signal);
    const started = performance.now();
    let body: ResponseBody | undefined;
    try {
      body = await this.openChat(chatBody(req, true), local.signal, req.model, opts.signal);
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
      local.unlink();
      slot.release();
    }
  }

  async *chatChunks(req: ChatRequest, opts: CallOptions & { includeUsage?: boolean } = {}): AsyncGenerator<string> {
    const slot = await this.takeSlot(req.model, opts);
    const local = linkedAbort(opts.signal);
    let body: ResponseBody | undefined;
    try {
      // The caller's include_usage, not the hub's: the chunks go out exactly as the router writes them.
      const payload = { ...chatBody(req, true), stream_options: { include_usage: opts.includeUsage === true } };
      body = await this.openChat(payload, local.signal, req.model, opts.signal);
      for await (const data of this.sseData(body, opts.signal)) yield data;
    } finally {
      if (!body?.readableEnded) {
        local.abort();
        body?.destroy();
      }
      local.unlink();
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

  hasInputTokens(): boolean {
    return !this.inputTokensAbsent;
  }

  async inputTokens(req: ChatRequest, opts: CallOptions = {}): Promise<number | null> {
    if (this.inputTokensAbsent) return null;
    const { stream: _stream, ...rest } = chatBody(req, false);
    const body = { ...rest, model: req.model };
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

  preconnect(): void {
    this.connector.preconnect();
  }

  /** Graceful close; after a short grace, in-flight router requests are cut (shutdown must not hang on a stream). */
  async close(): Promise<void> {
    this.connector.close();
    await closePool(this.pool, CLOSE_GRACE_MS);
  }

  // ---- slots -------------------------------------------------------------------------------

  /** Acquires a slot for a model call and mirrors it into the caller's evidence; the returned release is idempotent. */
  private async takeSlot(model: string, opts: CallOptions): Promise<Slot> {
    const t0 = performance.now();
    let granted: Release;
    try {
      granted = await this.admission.call(model, opts.signal);
    } catch (err) {
      throw queueFull(err);
    }
    const release = withEvidence(granted, opts.slots);
    return { release: stillWanted(release, opts.signal), waitMs: performance.now() - t0 };
  }

  // ---- HTTP --------------------------------------------------------------------------------

  private async send(method: 'GET' | 'POST', path: string, body: unknown, signal?: AbortSignal, timeoutMs?: number): Promise<Dispatcher.ResponseData> {
    // A large context block or a long question is encoded in slices first, not inside the request's piece.
    if (body !== undefined) await prepareBody(body as { messages?: unknown }, new LoopSlice());
    const res = await this.pool.request({
      method,
      path: this.prefix + path,
      headers: this.headers,
      body: body === undefined ? undefined : encodeJsonBody(body as Record<string, unknown>),
      signal,
      ...(timeoutMs ? { headersTimeout: timeoutMs, bodyTimeout: timeoutMs } : {}),
    });
    // Readers see body errors through their iterator; this keeps a destroyed, unread body from crashing the process.
    res.body.on('error', () => undefined);
    return res;
  }

  /** Turns any failure into an AbortError (caller gave up), a HubError as is, or a mapped transport error. */
  private fail(err: unknown, callerSignal: AbortSignal | undefined, midStream: boolean): unknown {
    if (callerSignal?.aborted) return abortErrorFrom(callerSignal);
    if (err instanceof HubError || isAbortError(err)) return err;
    return mapTransportError(err, this.baseUrl, midStream);
  }

  /**
   * A failure before any response headers: the request never reached a model (undelivered.ts), unless the
   * caller gave up or the router went silent with the request in hand (an idle timeout).
   */
  private failBeforeHeaders(err: unknown, callerSignal: AbortSignal | undefined): unknown {
    const mapped = this.fail(err, callerSignal, false);
    return mapped instanceof HubError && !(mapped instanceof RouterTimeoutError) ? markUndelivered(mapped, true) : mapped;
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
        throw this.failBeforeHeaders(err, callerSignal);
      }
      if (ok(res.statusCode)) return res.body;
      // Not a 2xx: no model output came or will come; a 429/502/503 says the router did not run the call.
      const refused = undeliveredStatus(res.statusCode);
      const text = await this.readText(res.body, callerSignal, false).catch((err: unknown) => {
        throw refused ? markUndelivered(err, refused.backendFault) : err;
      });
      const parsed = parseRouterErrorBody(text);
      if (!isLoadingModel(res.statusCode, parsed)) {
        const mapped = mapRouterHttpError(res.statusCode, text, res.headers, model);
        throw refused ? markUndelivered(mapped, refused.backendFault) : mapped;
      }
      if (attempt > this.loadingRetries) throw markUndelivered(routerUnavailable(attempt), true);
      await delay(this.loadingRetryDelayMs, undefined, { signal }).catch((err: unknown) => {
        throw this.fail(err, callerSignal, false);
      });
    }
  }

  /** Yields SSE `data:` payloads; comment pings are ignored by the parser. */
  private async *sseData(body: ResponseBody, callerSignal: AbortSignal | undefined): AsyncGenerator<string> {
    const queue: string[] = [];
    let overflow = false;
    const parser = createParser({
      onEvent: (e) => queue.push(e.data),
      // Unknown fields or a bad `retry:` are harmless; only an event over the byte cap is fatal.
      onError: (e) => {
        if (e.type === 'max-buffer-size-exceeded') overflow = true;
      },
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
      if (overflow) throw routerBodyTooLarge(this.maxBytes);
      while (queue.length > 0) yield queue.shift() as string;
      if (step.done) return;
    }
  }

  /**
   * An auxiliary POST naming a model it does not run: admitted as an aside (it rides a slot held for its
   * model, else takes one: it may make the router load the model), never counted as a model call in the
   * caller's slot evidence. One retry on a transport error, never on HTTP errors or abort (§5.7).
   */
  private async auxCall(path: string, body: { model: string }, signal?: AbortSignal): Promise<{ status: number; text: string }> {
    let granted: Release;
    try {
      granted = await this.admission.aside(body.model, signal);
    } catch (err) {
      throw queueFull(err);
    }
    const release = stillWanted(granted, signal);
    try {
      return await this.auxAttempts(path, body, signal);
    } finally {
      release();
    }
  }

  private async auxAttempts(path: string, body: unknown, signal?: AbortSignal): Promise<{ status: number; text: string }> {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await this.send('POST', path, body, signal);
        return { status: res.statusCode, text: await readCapped(res.body, this.maxBytes) };
      } catch (err) {
        if (signal?.aborted) throw abortErrorFrom(signal);
        if (attempt < 2 && !(err instanceof HubError) && !isAbortError(err)) continue;
        const mapped = this.fail(err, signal, false);
        if (!(mapped instanceof HubError)) throw mapped;
        const unavailable = tokenizationUnavailable(`The model router's ${path} is unavailable: ${mapped.message}`);
        // No answer came: another replica may give it (an aside runs no model; it is safe to send again).
        throw mapped instanceof RouterTimeoutError ? unavailable : markUndelivered(unavailable, true);
      }
    }
  }

  private auxParse(path: string, res: { status: number; text: string }): unknown {
    if (!ok(res.status)) {
      const msg = parseRouterErrorBody(res.text).message;
      const err = tokenizationUnavailable(`The model router's ${path} answered HTTP ${res.status}${msg ? `: ${truncate(msg)}` : ''}`);
      const refused = undeliveredStatus(res.status);
      throw refused ? markUndelivered(err, refused.backendFault) : err;
    }
    try {
      return JSON.parse(res.text);
    } catch {
      throw tokenizationUnavailable(`The model router sent a malformed ${path} body.`);
    }
  }

  private async auxJson(path: string, body: { model: string }, signal?: AbortSignal): Promise<unknown> {
    return this.auxParse(path, await this.auxCall(path, body, signal));
  }
}

/** The hub's own queue for this backend is full: nothing was sent, another replica may take the call. */
function queueFull(err: unknown): unknown {
  return err instanceof RouterBusyError ? markUndelivered(err, false) : err;
}

/** A slot granted in the same tick the caller gave up is handed straight back. */
function stillWanted(release: Release, signal: AbortSignal | undefined): Release {
  if (!signal?.aborted) return release;
  release();
  throw abortErrorFrom(signal);
}

/**
 * Reads a whole body, refusing more than `limit` bytes (a runaway router must not exhaust memory). Read
 * through events and `finished` (the stream's error, or a premature close, as an async iterator throws
 * them) rather than `for await`, whose iterator and per-chunk promises every blocking leg paid for.
 */
function readCapped(body: ResponseBody, limit: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    body.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        refused = true;
        body.destroy();
        reject(routerBodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    finished(body, (err) => {
      if (refused) return;
      if (err) reject(err);
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}
