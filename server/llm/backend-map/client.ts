/**
 * The router client of the LLM_BACKENDS map: one RouterClient in front of several, each call routed by its
 * `model` to the backends serving that id. Every backend keeps its own client (its slot semaphore and
 * queue, admission, connection pool); this one only chooses.
 *
 * A model with one backend is handed straight to it: nothing is added to its calls. A model with replicas
 * gets the least busy usable one (replicas.ts), and a call that never reached a model (undelivered.ts: no
 * connection, no response headers, 502/503/429, a full queue) goes on to the next replica, each at most
 * once. Once the router's headers have come, the call has reached a model and is never sent again: a
 * failure after that — a stream cut mid-generation — fails as it would with one backend. Streams apply the
 * same rule, decided on their first piece: until it comes the failure is the open's (and is marked only
 * when it happened before the headers); after it, pieces pass through and the stream is never re-opened.
 */
import { ModelUnavailableError } from '../../errors';
import { reframedChunks } from '../reframe-stream';
import type { CallOptions, ChatRequest, ChatResult, ModelInventory, RouterClient, StreamPiece, TokenizeResult } from '../types';
import { undelivered } from '../undelivered';
import { mergedInventory } from './inventory';
import type { MappedClientParts } from './parts';
import type { Replica, ReplicaSet } from './replicas';

type Slots = ReturnType<RouterClient['slotState']>;

/** A stream that fails on its first step (a call whose model has no backend). */
async function* failing<T>(err: unknown): AsyncGenerator<T> {
  throw err;
}

export class MappedRouterClient implements RouterClient {
  constructor(private readonly parts: MappedClientParts) {}

  chat(req: ChatRequest, opts: CallOptions = {}): Promise<ChatResult> {
    const set = this.route(req.model);
    if (!set) return Promise.reject(this.unserved(req.model));
    if (set.single) return set.single.client.chat(req, opts);
    return this.failover(set, opts.signal, (c) => c.chat(req, opts));
  }

  chatStream(req: ChatRequest, opts: CallOptions = {}): AsyncIterable<StreamPiece> {
    const set = this.route(req.model);
    if (!set) return failing(this.unserved(req.model));
    if (set.single) return set.single.client.chatStream(req, opts);
    return this.failoverStream(set, opts.signal, (c) => c.chatStream(req, opts));
  }

  chatChunks(req: ChatRequest, opts: CallOptions & { includeUsage?: boolean } = {}): AsyncIterable<string> {
    const set = this.route(req.model);
    if (!set) return failing(this.unserved(req.model));
    // A backend without its own chunks (the embedded engine) is re-framed, as the caller would do for it alone.
    const open = (c: RouterClient) => (c.chatChunks ? c.chatChunks(req, opts) : reframedChunks(c, req, opts, opts.includeUsage === true));
    if (set.single) return open(set.single.client);
    return this.failoverStream(set, opts.signal, open);
  }

  listModels(opts: { signal?: AbortSignal } = {}): Promise<ModelInventory> {
    return mergedInventory(this.parts, opts);
  }

  tokenize(body: Parameters<RouterClient['tokenize']>[0], opts: CallOptions = {}): Promise<TokenizeResult> {
    return this.aside(body.model, opts.signal, (c) => c.tokenize(body, opts));
  }

  applyTemplate(body: Parameters<RouterClient['applyTemplate']>[0], opts: CallOptions = {}): Promise<string> {
    return this.aside(body.model, opts.signal, (c) => c.applyTemplate(body, opts));
  }

  inputTokens(req: ChatRequest, opts: CallOptions = {}): Promise<number | null> {
    return this.aside(req.model, opts.signal, (c) => c.inputTokens(req, opts));
  }

  /** A backend without input_tokens answers null for its models, and the counter falls back to template + tokenize. */
  hasInputTokens(): boolean {
    return this.parts.backends.some((b) => b.client.hasInputTokens());
  }

  /** Every usable backend opens its spare connection (each costs nothing when one is open). */
  preconnect(): void {
    for (const b of this.parts.backends) if (b.client.preconnect && this.parts.health.usable(b.name)) b.client.preconnect();
  }

  /** The sum over backends: each backend's limit is its own. */
  slotState(): Slots {
    const sum: Slots = { inFlight: 0, queued: 0, capacity: 0, maxQueue: 0 };
    for (const b of this.parts.backends) {
      const s = b.client.slotState();
      sum.inFlight += s.inFlight;
      sum.queued += s.queued;
      sum.capacity += s.capacity;
      sum.maxQueue += s.maxQueue;
    }
    return sum;
  }

  async close(): Promise<void> {
    await Promise.all(this.parts.backends.map((b) => b.client.close()));
  }

  // ---- routing -------------------------------------------------------------------------------

  private route(model: string): ReplicaSet | null {
    return this.parts.routes.get(model) ?? this.parts.fallback;
  }

  private unserved(model: string): ModelUnavailableError {
    return new ModelUnavailableError(
      `No backend serves model '${model}': the LLM_BACKENDS file does not name it, and no LLM_BASE_URL (or LLM_BACKEND=embedded) serves the models it does not name.`,
      { extra: { source: 'llm-backends' } },
    );
  }

  /** A request naming a model that runs none (a count, a template): sent again freely, like a model call that never reached one. */
  private aside<T>(model: string, signal: AbortSignal | undefined, call: (c: RouterClient) => Promise<T>): Promise<T> {
    const set = this.route(model);
    if (!set) return Promise.reject(this.unserved(model));
    if (set.single) return call(set.single.client);
    return this.failover(set, signal, call);
  }

  /** Whether a failed attempt on `replica` may go on to another; a backend fault marks it down either way. */
  private mayRetry(replica: Replica, err: unknown, signal: AbortSignal | undefined): boolean {
    const mark = undelivered(err);
    if (!mark) return false;
    if (mark.backendFault) this.parts.health.down(replica.name);
    return !signal?.aborted;
  }

  private async failover<T>(set: ReplicaSet, signal: AbortSignal | undefined, call: (c: RouterClient) => Promise<T>): Promise<T> {
    const attempts = set.attempts();
    let last: unknown;
    for (let replica = attempts.next(); replica; replica = attempts.next()) {
      try {
        const out = await call(replica.client);
        this.parts.health.up(replica.name);
        return out;
      } catch (err) {
        if (!this.mayRetry(replica, err, signal)) throw err;
        last = err;
      }
    }
    throw last;
  }

  private async *failoverStream<T>(set: ReplicaSet, signal: AbortSignal | undefined, open: (c: RouterClient) => AsyncIterable<T>): AsyncGenerator<T> {
    const attempts = set.attempts();
    let last: unknown;
    for (let replica = attempts.next(); replica; replica = attempts.next()) {
      const it = open(replica.client)[Symbol.asyncIterator]();
      let step: IteratorResult<T>;
      try {
        step = await it.next();
      } catch (err) {
        if (!this.mayRetry(replica, err, signal)) throw err;
        last = err;
        continue;
      }
      // The first piece came: the call reached a model and stays on this replica whatever happens next.
      this.parts.health.up(replica.name);
      let ended = false;
      try {
        while (!step.done) {
          yield step.value;
          step = await it.next();
        }
        ended = true;
      } finally {
        // The consumer stopped early (or a later step failed): the replica's own stream aborts its request.
        if (!ended) await it.return?.(undefined);
      }
      return;
    }
    throw last;
  }
}
