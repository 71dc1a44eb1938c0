/**
 * One resident model: its context with one sequence per router slot, its chat template, its tokenizer and
 * its JSON-schema grammars. A sequence keeps the tokens it last evaluated, so the next prompt that starts
 * the same way (every stage of one answer opens with the same context message, decision 8) re-evaluates
 * only what follows the shared part.
 */
import type { LlamaContext, LlamaContextSequence, LlamaGrammar, LlamaModel, Token } from 'node-llama-cpp';
import { HubError, RouterBusyError } from '../../errors';
import type { ChatMessage } from '../types';
import { alignPieces, vocabularyPieces } from './pieces';
import { ChatTemplate } from './template';
import type { LlamaRuntime } from './runtime';
import type { ModelSpec } from './manifest';

const GRAMMAR_CACHE_LIMIT = 16;
const RECENT_PROMPTS = 4;
const utf8 = new TextEncoder();

export interface SequenceLease {
  sequence: LlamaContextSequence;
  release(): void;
}

interface SequenceSlot {
  sequence: LlamaContextSequence;
  busy: boolean;
}

/** Length of the common prefix of two token lists. */
export function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

export class LoadedModel {
  readonly nCtx: number;
  /** Tokens sampled since load (evidence that a cancelled generation stopped early). */
  generatedTokens = 0;
  readonly trainContext: number;
  private readonly template: ChatTemplate;
  private readonly slots: SequenceSlot[];
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  /** The last prompts tokenized: the budget count and the call that follows it tokenize once. */
  private readonly recentPrompts: Array<{ text: string; tokens: number[] }> = [];

  constructor(
    readonly spec: ModelSpec,
    private readonly runtime: LlamaRuntime,
    readonly model: LlamaModel,
    private readonly context: LlamaContext,
    sequences: LlamaContextSequence[],
  ) {
    this.nCtx = context.contextSize;
    this.trainContext = model.trainContextSize;
    const metadata = model.fileInfo.metadata as { tokenizer?: { chat_template?: unknown } };
    const source = metadata.tokenizer?.chat_template;
    this.template = new ChatTemplate(typeof source === 'string' ? source : undefined, {
      bos: model.tokens.bosString ?? '',
      eos: model.tokens.eosString ?? '',
    });
    this.slots = sequences.map((sequence) => ({ sequence, busy: false }));
  }

  /** Sequences in use right now (the registry never evicts a model with one). */
  busySequences(): number {
    return this.slots.filter((s) => s.busy).length;
  }

  /** `/apply-template`: the rendered prompt text, without the BOS text. */
  renderPrompt(messages: readonly ChatMessage[], tools?: unknown): string {
    return this.template.render(messages, { tools });
  }

  /** The exact tokens generation evaluates for `messages`: BOS (when the model wants one) + the prompt with specials parsed. */
  promptTokens(messages: readonly ChatMessage[], tools?: unknown): number[] {
    const text = this.renderPrompt(messages, tools);
    const known = this.recentPrompts.find((p) => p.text === text);
    if (known) return known.tokens;
    const tokens = this.tokenize(text, { addSpecial: true, parseSpecial: true });
    this.recentPrompts.unshift({ text, tokens });
    this.recentPrompts.length = Math.min(this.recentPrompts.length, RECENT_PROMPTS);
    return tokens;
  }

  tokenize(content: string, opts: { addSpecial: boolean; parseSpecial: boolean }): number[] {
    const tokens = this.model.tokenize(content, opts.parseSpecial) as number[];
    const bos = this.model.tokens.bos;
    if (opts.addSpecial && this.model.tokens.shouldPrependBosToken && bos !== null && tokens[0] !== bos) return [bos, ...tokens];
    return tokens;
  }

  /** Each token's bytes, aligned to `content` (null when they cannot be aligned exactly). */
  pieces(tokens: readonly number[], content: string): Uint8Array[] | null {
    const native = (this.model as unknown as { _model: { getTokenString(t: number): string; getVocabularyType(): number } })._model;
    const raw = vocabularyPieces(tokens, { type: native.getVocabularyType(), text: (t) => native.getTokenString(t) });
    return raw ? alignPieces(raw, utf8.encode(content)) : null;
  }

  detokenize(tokens: readonly number[], lastTokens: readonly number[]): string {
    return this.model.detokenize(tokens as readonly Token[], false, lastTokens as readonly Token[]);
  }

  isEndOfGeneration(token: number): boolean {
    return this.model.isEogToken(token as Token);
  }

  /** A grammar for a JSON schema (`any_json`: any JSON value), compiled once per schema. */
  grammar(schema: Record<string, unknown> | 'any_json'): Promise<LlamaGrammar> {
    const key = schema === 'any_json' ? schema : JSON.stringify(schema);
    let pending = this.grammars.get(key);
    if (!pending) {
      if (this.grammars.size >= GRAMMAR_CACHE_LIMIT) this.grammars.delete(this.grammars.keys().next().value as string);
      const llama = this.runtime.llama;
      pending = schema === 'any_json'
        ? llama.getGrammarFor('json')
        : llama.createGrammarForJsonSchema(schema as never) as Promise<LlamaGrammar>;
      this.grammars.set(key, pending);
      pending.catch(() => this.grammars.delete(key));
    }
    return pending.catch((err: unknown) => {
      const why = err instanceof Error ? err.message.split('\n')[0].slice(0, 200) : 'unsupported schema';
      throw new HubError('router_error', `The embedded engine cannot enforce this response_format schema: ${why}`, { extra: { source: 'embedded-llama' } });
    });
  }

  /**
   * An idle sequence, preferring the one whose evaluated tokens share the longest prefix with `prompt`.
   * The slot semaphore admits at most as many calls as there are sequences, so one is always idle.
   */
  lease(prompt: readonly number[]): SequenceLease {
    let best: SequenceSlot | undefined;
    let bestShared = -1;
    for (const slot of this.slots) {
      if (slot.busy) continue;
      const shared = commonPrefixLength(slot.sequence.contextTokens, prompt);
      if (shared > bestShared) {
        best = slot;
        bestShared = shared;
      }
    }
    if (!best) throw new RouterBusyError('Every sequence of the embedded model is busy; retry shortly.', { headers: { 'Retry-After': '2' } });
    const slot = best;
    slot.busy = true;
    let released = false;
    return {
      sequence: slot.sequence,
      release: () => {
        if (released) return;
        released = true;
        slot.busy = false;
      },
    };
  }

  async dispose(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
  }
}
