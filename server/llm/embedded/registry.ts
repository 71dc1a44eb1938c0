/**
 * Which models are resident: loaded on first use (one load at a time per model), at most `maxLoaded` at
 * once, the least recently used idle one unloaded to make room — as the llama.cpp router does. Each model
 * is `unloaded | loading | loaded | failed` with a reason, so the inventory never claims what cannot serve.
 */
import fs from 'node:fs';
import { HubError, ModelUnavailableError } from '../../errors';
import { LoadedModel } from './loaded-model';
import type { MissingModelHint } from '../types';
import { expectedModelFile, missingModelAdvice, type ModelCatalog, type ModelSpec } from './manifest';
import { loadRuntime, runtimeFailure, type LlamaRuntime } from './runtime';

/** Context per sequence when the manifest sets none: the model's training context, at most this. */
export const DEFAULT_MAX_CONTEXT = 32768;

export type ModelStatus = 'unloaded' | 'loading' | 'loaded' | 'failed';

interface Entry {
  spec: ModelSpec;
  status: ModelStatus;
  reason: string | null;
  loaded: LoadedModel | null;
  loading: Promise<LoadedModel> | null;
  pins: number;
  lastUsed: number;
  /** The file as it was when loading failed: a replaced file is tried again. */
  failedStat: string | null;
}

export interface ModelLease {
  model: LoadedModel;
  release(): void;
}

export interface RegistryOptions {
  maxLoaded: number;
  /** Sequences per context: the slot semaphore's capacity, so a granted slot always finds one. */
  sequences: number;
  loadRuntime?: () => Promise<LlamaRuntime>;
}

function fileStat(file: string): string | null {
  try {
    const st = fs.statSync(file);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return null;
  }
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 300);
}

export class ModelRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly idleWaiters: Array<() => void> = [];
  private clock = 0;
  private closed = false;

  constructor(readonly catalog: ModelCatalog, private readonly opts: RegistryOptions) {
    for (const spec of catalog.specs) {
      this.entries.set(spec.id, {
        spec, status: spec.problem ? 'failed' : 'unloaded', reason: spec.problem, loaded: null, loading: null, pins: 0, lastUsed: 0, failedStat: null,
      });
    }
  }

  /** Every known model with its state, in catalogue order. */
  states(): Array<{ spec: ModelSpec; status: ModelStatus; reason: string | null; loaded: LoadedModel | null }> {
    return [...this.entries.values()].map((e) => ({ spec: e.spec, status: e.status, reason: e.reason, loaded: e.loaded }));
  }

  /** The model, loaded if need be and pinned (never unloaded) until the lease is released. */
  async use(id: string): Promise<ModelLease> {
    const entry = this.entries.get(id);
    if (!entry) throw this.unknownModel(id);
    if (entry.status === 'failed' && entry.failedStat !== null && fileStat(entry.spec.file) !== entry.failedStat) {
      entry.status = 'unloaded';
      entry.reason = null;
    }
    if (entry.status === 'failed') throw this.failedModel(entry);
    entry.pins++;
    try {
      const model = entry.loaded ?? (await (entry.loading ??= this.load(entry)));
      entry.lastUsed = ++this.clock;
      let released = false;
      return {
        model,
        release: () => {
          if (released) return;
          released = true;
          this.unpin(entry);
        },
      };
    } catch (err) {
      this.unpin(entry);
      throw err;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.entries.values()) {
      const model = entry.loaded ?? (entry.loading ? await entry.loading.catch(() => null) : null);
      entry.loaded = null;
      await model?.dispose().catch(() => undefined);
    }
  }

  private unpin(entry: Entry): void {
    entry.pins--;
    if (entry.pins === 0) this.idleWaiters.splice(0).forEach((wake) => wake());
  }

  /** Where model `id` goes when it cannot be served (null: it can). One wording for every place that says it. */
  missingModel(id: string): MissingModelHint | null {
    const entry = this.entries.get(id);
    if (entry && entry.status !== 'failed') return null;
    if (entry) return { model: id, expected_file: entry.spec.file, advice: `${entry.reason ?? 'it failed to load'}; put a valid GGUF file at ${entry.spec.file}.` };
    const file = expectedModelFile(this.catalog.dir, id);
    return { model: id, ...(file ? { expected_file: file } : {}), advice: missingModelAdvice(this.catalog.dir, id) };
  }

  private unavailable(message: string, hint: MissingModelHint): HubError {
    return new ModelUnavailableError(`${message} ${hint.advice}`, {
      extra: { source: 'embedded-llama', model: hint.model, ...(hint.expected_file ? { expected_file: hint.expected_file } : {}) },
    });
  }

  private unknownModel(id: string): HubError {
    const known = [...this.entries.keys()];
    const have = known.length ? `It serves ${known.map((k) => `'${k}'`).join(', ')}.` : 'It has no model.';
    return this.unavailable(`The embedded engine has no model '${id}'. ${have}`, this.missingModel(id)!);
  }

  private failedModel(entry: Entry): HubError {
    return this.unavailable(`The embedded engine cannot serve model '${entry.spec.id}':`, this.missingModel(entry.spec.id)!);
  }

  private async load(entry: Entry): Promise<LoadedModel> {
    entry.status = 'loading';
    try {
      await this.makeRoom(entry);
      const model = await this.open(entry.spec);
      if (this.closed) {
        await model.dispose();
        throw new HubError('router_unavailable', 'The embedded engine is shutting down.');
      }
      entry.loaded = model;
      entry.status = 'loaded';
      entry.reason = null;
      return model;
    } catch (err) {
      entry.status = 'failed';
      entry.reason = err instanceof HubError ? err.message : firstLine(err);
      entry.failedStat = fileStat(entry.spec.file);
      throw err instanceof HubError ? err : this.failedModel(entry);
    } finally {
      entry.loading = null;
    }
  }

  /** Unloads least recently used idle models until one more fits; waits for one to go idle if none is. */
  private async makeRoom(entry: Entry): Promise<void> {
    for (;;) {
      const resident = [...this.entries.values()].filter((e) => e !== entry && (e.loaded || e.loading));
      if (resident.length < this.opts.maxLoaded) return;
      const idle = resident.filter((e) => e.loaded && e.pins === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (idle) {
        const model = idle.loaded!;
        idle.loaded = null;
        idle.status = 'unloaded';
        await model.dispose();
        continue;
      }
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
  }

  private async open(spec: ModelSpec): Promise<LoadedModel> {
    let runtime: LlamaRuntime;
    try {
      runtime = await (this.opts.loadRuntime ?? loadRuntime)();
    } catch (err) {
      throw new Error(runtimeFailure(err));
    }
    let model;
    try {
      model = await runtime.llama.loadModel({ modelPath: spec.file, gpuLayers: spec.gpuLayers, defaultContextSwaFullCache: spec.swaFull });
    } catch (err) {
      throw new Error(`${spec.file} could not be loaded (${firstLine(err)})`);
    }
    try {
      const train = model.trainContextSize;
      if (spec.contextSize !== null && spec.contextSize > train) {
        throw new Error(`context_size ${spec.contextSize} for '${spec.id}' exceeds the training context of ${spec.file} (${train} tokens)`);
      }
      const contextSize = spec.contextSize ?? { max: Math.min(train, DEFAULT_MAX_CONTEXT) };
      let context;
      try {
        context = await model.createContext({
          contextSize, sequences: this.opts.sequences, threads: { ideal: spec.threads, min: spec.threads }, swaFullCache: spec.swaFull,
        });
      } catch (err) {
        throw new Error(`a context of ${typeof contextSize === 'number' ? contextSize : 'the default'} tokens × ${this.opts.sequences} sequences for ${spec.file} could not be created (${firstLine(err)})`);
      }
      const sequences = Array.from({ length: this.opts.sequences }, () => context.getSequence());
      return new LoadedModel(spec, runtime, model, context, sequences);
    } catch (err) {
      await model.dispose().catch(() => undefined);
      throw err;
    }
  }
}
