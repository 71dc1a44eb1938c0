/** Pure readers of the router's response bodies (router.md §1): completions, stream chunks, tokens, inventory. */
import { sanitize } from '../sanitize';
import { malformedRouterBody, parseRouterErrorBody, streamFailed, tokenizationUnavailable } from './router-errors';
import type { ChatRequest, ChatResult, ModelInventory, TokenizeResult, ToolCall, Usage } from './types';

type Json = Record<string, unknown>;
const utf8 = new TextEncoder();

export function isObj(v: unknown): v is Json {
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
export function chatBody(req: ChatRequest, stream: boolean): Json {
  const body: Json = { ...req };
  for (const k of ['n', 'n_cmpl', 'stream', 'stream_options']) delete body[k];
  if (!stream) return { ...body, stream: false };
  return { ...body, stream: true, stream_options: { include_usage: true } };
}

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw malformedRouterBody(what);
  }
}

/**
 * `message.tool_calls` as the hub reads them. A malformed entry is kept (empty name or arguments) so
 * the tool loop can report it instead of silently acting as if no tool was called.
 */
function toToolCalls(raw: unknown): ToolCall[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  return raw.map((entry): ToolCall => {
    const fn = isObj(entry) && isObj(entry.function) ? entry.function : {};
    const args = fn.arguments;
    return {
      id: isObj(entry) && typeof entry.id === 'string' ? entry.id : null,
      name: typeof fn.name === 'string' ? fn.name : '',
      // Some servers send the arguments as an object rather than JSON text.
      arguments: typeof args === 'string' ? args : isObj(args) ? JSON.stringify(args) : '',
    };
  });
}

export function toChatResult(json: unknown, queueWaitMs: number, routerMs: number): ChatResult {
  const choice = isObj(json) && Array.isArray(json.choices) ? json.choices[0] : undefined;
  if (!isObj(json) || !isObj(choice)) throw malformedRouterBody('chat completion (no choices)');
  const message = isObj(choice.message) ? choice.message : {};
  const toolCalls = toToolCalls(message.tool_calls);
  return {
    content: typeof message.content === 'string' ? message.content : '',
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    ...(toolCalls ? { toolCalls } : {}),
    usage: toUsage(json.usage),
    model: typeof json.model === 'string' ? json.model : null,
    queueWaitMs,
    routerMs,
  };
}

/** Accumulates one streamed completion; each SSE `data:` goes through `take`. */
export class StreamAccumulator {
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
export function toTokenizeResult(json: unknown): TokenizeResult {
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

export function unreachableInventory(): ModelInventory {
  return { reachable: false, ids: [], entries: {} };
}

/** Router mode lists every known model whatever its `status.value` (unloaded ones autoload). */
export function toInventory(json: unknown): ModelInventory {
  if (!isObj(json) || !Array.isArray(json.data)) return unreachableInventory();
  const ids: string[] = [];
  // Null prototype: an id such as `__proto__` or `constructor` is just another id.
  const entries: Record<string, Json> = Object.create(null) as Record<string, Json>;
  for (const entry of json.data) {
    if (!isObj(entry) || typeof entry.id !== 'string' || entry.id === '' || Object.hasOwn(entries, entry.id)) continue;
    ids.push(entry.id);
    entries[entry.id] = sanitize(entry) as Json;
  }
  return { reachable: true, ids, entries };
}
