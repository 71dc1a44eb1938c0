/**
 * Exact token counting (hub-contract §5.7, decision 7): counts come from the model router (or a configured
 * local tokenizer.json), never from an estimate; any failure is `tokenization_unavailable`.
 *
 * A counter is REQUEST-SCOPED (one per turn): its chat-count cache lets the selector's measurement of a
 * stage prompt be reused by dispatch's budget guard (§5.9: a normal stage tokenizes its prompt once), and
 * its stats describe that one turn in the trace.
 */
import { createHash } from 'node:crypto';
import { isAbortError, ModelUnavailableError, TokenizationUnavailableError } from '../errors';
import { abortErrorFrom } from './slots';
import { blockParts, longTail } from './shared-block';
import { chargeTokens, joinRecords, piecesMatch, recordCosts } from './tokens-records';
import { localFor, type ChatCountRequest, type LocalTokenizer } from './tokens-local';
import type { ChatRequest, RouterClient } from './types';

export { loadLocalTokenizer, fromTokenizer } from './tokens-local';
export type { ChatCountRequest, LocalTokenizer, LocalTokenizerOptions } from './tokens-local';
export { RECORD_BOUNDARY_MARKER } from './tokens-records';

export type ChatCountMode = 'input_tokens' | 'template' | 'local';

export interface TokenCounterStats {
  /** Router calls made by this counter (the router client may retry one transport error inside a call). */
  http_requests: number;
  /** Chat prompts actually measured (cache misses that succeeded). */
  chat_counts_performed: number;
  chat_cache_hits: number;
  /** How the last chat count was obtained; null before any. */
  chat_count_mode: ChatCountMode | null;
  /** Entries now in the chat-count cache. */
  cached_prompt_counts: number;
  /** Batched record-cost computations (one router `/tokenize` each, or one local pass). */
  record_cost_calls: number;
}

export interface TokenCounter {
  /** Exact prompt tokens of the real chat request (model, messages, tools, tool_choice, chat_template_kwargs; sampling/output fields ignored). */
  countChat(req: ChatCountRequest): Promise<number>;
  /** The exact count of a prompt this counter has already measured (a cache hit), else undefined; never calls the router. */
  knownChatCount(req: ChatCountRequest): Promise<number> | undefined;
  /** Exact costs of record texts in ONE `/tokenize` call with pieces (§5.7); each cost ≥ 1; `[]` for no texts. */
  countRecords(model: string, texts: string[]): Promise<number[]>;
  /** Exact tokens of a plain text (no BOS/EOS). */
  count(model: string, text: string): Promise<number>;
  stats(): TokenCounterStats;
}

export interface TokenCounterDeps {
  router: RouterClient;
  local?: LocalTokenizer | null;
}

export const CHAT_COUNT_CACHE_SIZE = 32;
const ROUTER_SOURCE = 'llama-router';
const LOCAL_SOURCE = 'local-tokenizer';


export function createTokenCounter(deps: TokenCounterDeps, opts: { signal?: AbortSignal } = {}): TokenCounter {
  return new RequestTokenCounter(deps.router, deps.local ?? null, opts.signal);
}

class RequestTokenCounter implements TokenCounter {
  /** Promises, not numbers: two concurrent measurements of one prompt share a single router round trip. */
  private readonly chatCache = new LruCache<Promise<number>>(CHAT_COUNT_CACHE_SIZE);
  private readonly counters = { http_requests: 0, chat_counts_performed: 0, chat_cache_hits: 0, record_cost_calls: 0 };
  private mode: ChatCountMode | null = null;

  constructor(
    private readonly router: RouterClient,
    private readonly local: LocalTokenizer | null,
    private readonly signal: AbortSignal | undefined,
  ) {}

  countChat(req: ChatCountRequest): Promise<number> {
    if (this.signal?.aborted) return Promise.reject(abortErrorFrom(this.signal));
    const key = chatCacheKey(req);
    const cached = this.chatCache.get(key);
    if (cached) {
      this.counters.chat_cache_hits++;
      return cached;
    }
    const pending = this.measureChat(req);
    this.chatCache.set(key, pending);
    // A failed or aborted measurement must not be served to the next caller.
    pending.then(
      () => this.counters.chat_counts_performed++,
      () => this.chatCache.deleteIf(key, pending),
    );
    return pending;
  }

  knownChatCount(req: ChatCountRequest): Promise<number> | undefined {
    const cached = this.chatCache.get(chatCacheKey(req));
    if (cached) this.counters.chat_cache_hits++;
    return cached;
  }

  async countRecords(model: string, texts: string[]): Promise<number[]> {
    if (texts.length === 0) return [];
    this.throwIfAborted();
    this.counters.record_cost_calls++;
    const local = this.local;
    if (localFor(local, model)) {
      // In process, each record is counted on its own: exact for the record alone, no join needed.
      return recordCosts(texts.map((text) => this.localCount(local, text)));
    }
    const joined = joinRecords(texts);
    const result = await this.routerCall(() =>
      this.router.tokenize({ model, content: joined.content, add_special: false, parse_special: false, with_pieces: true }, { signal: this.signal }),
    );
    if (!result.pieces || result.pieces.length !== result.count) {
      throw unavailable(ROUTER_SOURCE, 'The model router answered /tokenize without token pieces; record costs cannot be attributed.');
    }
    if (!piecesMatch(result.pieces, Buffer.from(joined.content, 'utf8'))) {
      throw unavailable(ROUTER_SOURCE, 'The model router\'s /tokenize pieces do not concatenate to the content sent; record costs cannot be attributed.');
    }
    return recordCosts(chargeTokens(result.pieces, joined.ranges));
  }

  async count(model: string, text: string): Promise<number> {
    this.throwIfAborted();
    if (text === '') return 0;
    const local = this.local;
    if (localFor(local, model)) return this.localCount(local, text);
    const result = await this.routerCall(() => this.router.tokenize({ model, content: text, add_special: false }, { signal: this.signal }));
    return result.count;
  }

  stats(): TokenCounterStats {
    return { ...this.counters, chat_count_mode: this.mode, cached_prompt_counts: this.chatCache.size };
  }

  // ---- chat measurement ------------------------------------------------------------------

  private async measureChat(req: ChatCountRequest): Promise<number> {
    const local = this.local;
    if (localFor(local, req.model) && local.renderChat) {
      const renderChat = local.renderChat.bind(local);
      const n = this.localCount(local, () => renderChat(req));
      this.mode = 'local';
      return n;
    }
    // The router client remembers a 404 for the process; asking it first spares (and honestly counts) the call.
    if (this.router.hasInputTokens()) {
      const n = await this.routerCall(() => this.router.inputTokens(inputTokensBody(req), { signal: this.signal }));
      if (n !== null) {
        this.mode = 'input_tokens';
        return n;
      }
    }
    const prompt = await this.routerCall(() =>
      this.router.applyTemplate({ model: req.model, messages: req.messages, tools: req.tools, tool_choice: req.tool_choice }, { signal: this.signal }),
    );
    // The template's markers are special tokens: parse them as such, exactly as the router does for a chat.
    const result = await this.routerCall(() =>
      this.router.tokenize({ model: req.model, content: prompt, add_special: false, parse_special: true }, { signal: this.signal }),
    );
    this.mode = 'template';
    return result.count;
  }

  // ---- failure policy --------------------------------------------------------------------

  /** One router call: counted, abort-aware, and any failure reported as `tokenization_unavailable` (never an estimate). */
  private async routerCall<T>(call: () => Promise<T>): Promise<T> {
    this.throwIfAborted();
    this.counters.http_requests++;
    try {
      return await call();
    } catch (err) {
      // Cancellation is the caller giving up, not a tokenizer failure. No retry here: the client already retried.
      if (this.signal?.aborted) throw abortErrorFrom(this.signal);
      if (isAbortError(err)) throw err;
      if (err instanceof TokenizationUnavailableError && err.extra.source === ROUTER_SOURCE) throw err;
      // The backend cannot serve the model at all (no file, a failed load): that, not the tokenizer, is the error.
      if (err instanceof ModelUnavailableError) throw err;
      throw unavailable(ROUTER_SOURCE, `Exact token counting through the model router failed: ${messageOf(err)}`);
    }
  }

  /** Counts `text` (or the text it renders to) locally; a tokenizer or template error is `tokenization_unavailable`. */
  private localCount(local: LocalTokenizer, text: string | (() => string)): number {
    try {
      return local.count(typeof text === 'function' ? text() : text);
    } catch (err) {
      throw unavailable(LOCAL_SOURCE, `Exact token counting with the local tokenizer failed: ${messageOf(err)}`);
    }
  }

  private throwIfAborted(): void {
    if (this.signal?.aborted) throw abortErrorFrom(this.signal);
  }
}

/** The input_tokens body: only the prompt-shaping fields (sampling/output fields cannot change the count). */
function inputTokensBody(req: ChatCountRequest): ChatRequest {
  const body: ChatRequest = { model: req.model, messages: req.messages };
  if (req.tools !== undefined) body.tools = req.tools as unknown[];
  if (req.tool_choice !== undefined) body.tool_choice = req.tool_choice;
  if (req.chat_template_kwargs !== undefined) body.chat_template_kwargs = req.chat_template_kwargs;
  return body;
}

/** SHA-256 of the sorted-key JSON of exactly the prompt-shaping fields (§5.7). */
export function chatCacheKey(req: ChatCountRequest): string {
  const { model, messages, tools, tool_choice, chat_template_kwargs } = req;
  const hash = createHash('sha256').update(sortedKeyJson({ model, tools, tool_choice, chat_template_kwargs }));
  // Plain {role, content} messages (every hub prompt) are hashed as length-prefixed text, skipping a
  // sorted re-serialisation of tens of kilobytes per count; any other message shape goes in as sorted JSON.
  for (const m of messages as ReadonlyArray<Record<string, unknown>>) {
    const parts = blockParts(m);
    if (parts) {
      // A stage message on the turn's shared block: the block's digest (hashed once per turn), then the tail.
      hash.update(`\u0000b${(m.role as string).length}:${m.role as string}${parts.block.digest()}${parts.tail.length}`);
      // A long tail goes in by its remembered digest (a megabyte question is hashed once, not per count).
      const long = longTail(parts.tail);
      if (long) hash.update(`#${long.digest()}`);
      else hash.update(':').update(parts.tail);
      continue;
    }
    const keys = Object.keys(m);
    if (typeof m.role === 'string' && typeof m.content === 'string' && keys.length === 2) {
      hash.update(`\u0000t${m.role.length}:${m.role}${m.content.length}:`).update(m.content);
    } else {
      const json = sortedKeyJson(m);
      hash.update(`\u0000j${json.length}:`).update(json);
    }
  }
  return hash.digest('hex');
}

/**
 * Deterministic JSON with object keys sorted at every depth (undefined members dropped, as JSON does).
 * Why not the `canonicalize` package: its v4 is ESM-only with only an `import` export condition, so this
 * CommonJS build (and jest) cannot load it. A cache key needs determinism only, not RFC 8785 byte-exactness.
 */
export function sortedKeyJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      Object.defineProperty(sorted, k, { value: (v as Record<string, unknown>)[k], enumerable: true, writable: true, configurable: true });
    }
    return sorted;
  });
}

function unavailable(source: string, message: string): TokenizationUnavailableError {
  return new TokenizationUnavailableError(source, message.length > 400 ? `${message.slice(0, 400)}…` : message);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Least-recently-used map with a fixed bound; Map keeps insertion order, so the first key is the eldest. */
class LruCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.map.size;
  }

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
  }

  /** Removes `key` only while it still maps to `value` (a newer entry for the key is kept). */
  deleteIf(key: string, value: V): void {
    if (this.map.get(key) === value) this.map.delete(key);
  }
}
