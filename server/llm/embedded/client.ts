/**
 * The embedded llama.cpp engine behind the router-client interface (decision 25): the same calls, errors,
 * usage figures and slot semaphore as the HTTP router, answered in process by node-llama-cpp.
 */
import { performance } from 'node:perf_hooks';
import { HubError, isAbortError } from '../../errors';
import { SlotSemaphore, abortErrorFrom, withEvidence } from '../slots';
import { tokenizationUnavailable } from '../router-errors';
import type { CallOptions, ChatMessage, ChatRequest, ChatResult, ModelInventory, RouterClient, StreamPiece, TokenizeResult } from '../types';
import { generate, type GenerationOutcome } from './generate';
import { noModelAdvice } from './manifest';
import { commonPrefixLength } from './loaded-model';
import type { ModelLease, ModelRegistry } from './registry';
import { responseSchema, samplingOf } from './sampling';
import { loadRuntime } from './runtime';

export interface EmbeddedClientOptions {
  maxConcurrency: number;
  maxQueue: number;
  /** Reuse each sequence's shared prompt prefix (decision 8); false only for the benchmark's baseline. */
  reusePrefix: boolean;
}

const OWNER = 'med-agent-hub-embedded';
/** Prompts remembered per turn for its unique-token figure (a turn makes a handful of calls). */
const PROMPTS_PER_TURN = 16;

function stopStrings(req: ChatRequest): string[] {
  const stop = req.stop;
  if (typeof stop === 'string') return stop === '' ? [] : [stop];
  return Array.isArray(stop) ? stop.filter((s): s is string => typeof s === 'string' && s !== '').slice(0, 16) : [];
}

export class EmbeddedClient implements RouterClient {
  private readonly semaphore: SlotSemaphore;
  private readonly turnPrompts = new WeakMap<object, number[][]>();

  constructor(private readonly registry: ModelRegistry, private readonly opts: EmbeddedClientOptions) {
    this.semaphore = new SlotSemaphore(opts.maxConcurrency, opts.maxQueue);
  }

  async chat(req: ChatRequest, opts: CallOptions = {}): Promise<ChatResult> {
    let content = '';
    for await (const piece of this.chatStream(req, opts)) {
      if (piece.kind === 'delta') content += piece.content;
      else return { ...piece.result, content };
    }
    throw new HubError('router_error', 'The embedded engine ended a completion without a result.');
  }

  async *chatStream(req: ChatRequest, opts: CallOptions = {}): AsyncGenerator<StreamPiece> {
    const t0 = performance.now();
    const release = withEvidence(await this.semaphore.acquire(opts.signal), opts.slots);
    const queueWaitMs = performance.now() - t0;
    let lease: ModelLease | null = null;
    let sequence: { release(): void } | null = null;
    let run: AsyncGenerator<string, GenerationOutcome> | null = null;
    try {
      if (opts.signal?.aborted) throw abortErrorFrom(opts.signal);
      lease = await this.registry.use(req.model);
      const model = lease.model;
      const prompt = model.promptTokens(req.messages, req.tools);
      const schema = responseSchema(req);
      const grammar = schema ? await model.grammar(schema) : null;
      const seq = model.lease(prompt);
      sequence = seq;
      const runtime = await loadRuntime();
      run = generate(runtime, model, seq, { prompt, sampling: samplingOf(req), grammar, stop: stopStrings(req), reusePrefix: this.opts.reusePrefix, signal: opts.signal });
      let outcome: GenerationOutcome | undefined;
      for (;;) {
        const step = await run.next();
        if (step.done) {
          outcome = step.value;
          break;
        }
        yield { kind: 'delta', content: step.value };
      }
      // Generation is over: free the sequence and the slot before the consumer handles `done`.
      seq.release();
      release();
      yield {
        kind: 'done',
        result: {
          content: '', finishReason: outcome.finishReason, usage: outcome.usage, model: req.model, queueWaitMs, routerMs: performance.now() - t0 - queueWaitMs,
          promptEvaluation: { evaluatedTokens: outcome.evaluatedPromptTokens, newUniqueTokens: this.newUniqueTokens(opts.turnKey, prompt) },
        },
      };
    } catch (err) {
      if (opts.signal?.aborted || isAbortError(err)) throw abortErrorFrom(opts.signal);
      throw err;
    } finally {
      // An abandoned generation must end its engine evaluation before the sequence is handed out again.
      await run?.return(undefined as never).catch(() => undefined);
      sequence?.release();
      lease?.release();
      release();
    }
  }

  async listModels(): Promise<ModelInventory> {
    const ids: string[] = [];
    const entries: Record<string, Record<string, unknown>> = Object.create(null) as Record<string, Record<string, unknown>>;
    for (const state of this.registry.states()) {
      // Unloaded models load on first use, as in router mode; a failed one is not advertised.
      if (state.status !== 'failed') ids.push(state.spec.id);
      entries[state.spec.id] = {
        id: state.spec.id,
        object: 'model',
        owned_by: OWNER,
        status: { value: state.status, ...(state.status === 'failed' ? { failed: true, reason: state.reason } : {}) },
        ...(state.loaded ? { meta: { n_ctx: state.loaded.nCtx, n_ctx_train: state.loaded.trainContext } } : {}),
      };
    }
    const notes = [...this.registry.catalog.problems];
    if (ids.length === 0) notes.push(noModelAdvice(this.registry.catalog.dir));
    return { reachable: true, ids, entries, notes, missingModel: (id) => this.registry.missingModel(id) };
  }

  async tokenize(body: Parameters<RouterClient['tokenize']>[0], opts: CallOptions = {}): Promise<TokenizeResult> {
    return this.withModel(body.model, opts, (lease) => {
      const tokens = lease.model.tokenize(body.content, { addSpecial: body.add_special ?? false, parseSpecial: body.parse_special ?? true });
      if (!body.with_pieces) return { count: tokens.length, tokens };
      const pieces = lease.model.pieces(tokens, body.content);
      if (!pieces) throw tokenizationUnavailable(`The embedded engine cannot attribute token pieces of model '${body.model}' to bytes (its vocabulary kind is not decoded).`);
      return { count: tokens.length, tokens, pieces };
    });
  }

  async applyTemplate(body: { model: string; messages: ChatMessage[]; tools?: unknown }, opts: CallOptions = {}): Promise<string> {
    return this.withModel(body.model, opts, (lease) => lease.model.renderPrompt(body.messages, body.tools));
  }

  /** Exact: the very tokens generation evaluates for this body. */
  async inputTokens(req: ChatRequest, opts: CallOptions = {}): Promise<number | null> {
    return this.withModel(req.model, opts, (lease) => lease.model.promptTokens(req.messages, req.tools).length);
  }

  hasInputTokens(): boolean {
    return true;
  }

  slotState(): { inFlight: number; queued: number; capacity: number; maxQueue: number } {
    return this.semaphore.state();
  }

  async close(): Promise<void> {
    await this.registry.close();
  }

  /** Prompt tokens that no earlier prompt of this turn began with (null outside a turn). */
  private newUniqueTokens(turnKey: object | undefined, prompt: number[]): number | null {
    if (!turnKey) return null;
    const earlier = this.turnPrompts.get(turnKey) ?? [];
    const shared = earlier.reduce((best, p) => Math.max(best, commonPrefixLength(p, prompt)), 0);
    if (earlier.length < PROMPTS_PER_TURN) earlier.push(prompt);
    this.turnPrompts.set(turnKey, earlier);
    return prompt.length - shared;
  }

  private async withModel<T>(model: string, opts: CallOptions, fn: (lease: ModelLease) => T): Promise<T> {
    if (opts.signal?.aborted) throw abortErrorFrom(opts.signal);
    const lease = await this.registry.use(model);
    try {
      return fn(lease);
    } finally {
      lease.release();
    }
  }
}
