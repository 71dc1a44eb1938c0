/**
 * One completion on one sequence: prefix reuse, the prompt evaluated, tokens sampled until the end of
 * generation, `max_tokens`, a stop string or the end of the context (no context shift, like llama-server),
 * text decoded without splitting a UTF-8 character, and an AbortSignal that stops at the next token.
 */
import { performance } from 'node:perf_hooks';
import type { LlamaGrammar, Token } from 'node-llama-cpp';
import { InsufficientContextError } from '../../errors';
import { abortErrorFrom } from '../slots';
import type { Usage } from '../types';
import type { LoadedModel, SequenceLease } from './loaded-model';
import type { Sampling } from './sampling';
import type { LlamaRuntime } from './runtime';

export interface GenerationInput {
  prompt: number[];
  sampling: Sampling;
  grammar: LlamaGrammar | null;
  stop: string[];
  /** false: re-evaluate the whole prompt (the benchmark's baseline); true: reuse the sequence's shared prefix. */
  reusePrefix: boolean;
  signal?: AbortSignal;
}

export interface GenerationOutcome {
  finishReason: 'stop' | 'length';
  usage: Usage;
  /** Prompt tokens the engine evaluated for this call (the rest came from the sequence's cache). */
  evaluatedPromptTokens: number;
  evalMs: number;
}

/** Tokens decoded together at most while waiting for the rest of a UTF-8 character. */
const MAX_PENDING_TOKENS = 8;
const LOOKBACK_TOKENS = 8;

export function contextExceeded(model: LoadedModel, promptTokens: number): InsufficientContextError {
  return new InsufficientContextError(
    'embedded-llama',
    `The prompt (${promptTokens} tokens) exceeds the context window of model '${model.spec.id}' (${model.nCtx} tokens per sequence).`,
    { n_prompt_tokens: promptTokens, n_ctx: model.nCtx },
  );
}

/** Text held back while it could still become a stop string. */
function heldBack(text: string, stops: readonly string[]): number {
  let keep = 0;
  for (const stop of stops) {
    for (let k = Math.min(stop.length - 1, text.length); k > keep; k--) {
      if (text.endsWith(stop.slice(0, k))) {
        keep = k;
        break;
      }
    }
  }
  return keep;
}

/** Streams the completion's text; returns its outcome. The lease is released by the caller. */
export async function* generate(runtime: LlamaRuntime, model: LoadedModel, lease: SequenceLease, input: GenerationInput): AsyncGenerator<string, GenerationOutcome> {
  const { sequence } = lease;
  const { prompt, sampling } = input;
  if (prompt.length >= model.nCtx) throw contextExceeded(model, prompt.length);
  const started = performance.now();
  let reused = input.reusePrefix ? sequence.compareContextTokens(prompt as Token[]).firstDifferentIndex : 0;
  // The last prompt token is always evaluated again: its logits choose the first completion token.
  reused = Math.min(reused, prompt.length - 1);
  if (reused < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: reused, end: sequence.nextTokenIndex }]);
  const room = model.nCtx - prompt.length;
  const limit = sampling.maxTokens === null ? room : Math.min(sampling.maxTokens, room);
  const generated: number[] = [];
  let text = '';
  let emitted = 0;
  let pending: number[] = [];
  let finishReason: 'stop' | 'length' = 'stop';
  let evaluated: number | null = null;
  const grammarEvaluationState = input.grammar ? new runtime.lib.LlamaGrammarEvaluationState({ model: model.model, grammar: input.grammar }) : undefined;
  const promptTail = prompt.slice(-Math.max(sampling.repeat?.lastTokens ?? 0, 1));
  const iterator = sequence.evaluate(prompt.slice(reused) as Token[], {
    temperature: sampling.temperature,
    topK: sampling.topK,
    topP: sampling.topP,
    minP: sampling.minP,
    ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
    ...(grammarEvaluationState ? { grammarEvaluationState } : {}),
    ...(sampling.repeat
      ? {
        repeatPenalty: {
          punishTokens: () => [...promptTail, ...generated].slice(-sampling.repeat!.lastTokens) as Token[],
          penalty: sampling.repeat.penalty,
          frequencyPenalty: sampling.repeat.frequencyPenalty,
          presencePenalty: sampling.repeat.presencePenalty,
        },
      }
      : {}),
    ...(sampling.dry ? { dryRepeatPenalty: { ...sampling.dry } } : {}),
  });
  try {
    if (limit === 0) {
      finishReason = 'length';
      evaluated = prompt.length - reused;
    } else {
      for (;;) {
        if (input.signal?.aborted) throw abortErrorFrom(input.signal);
        const step = await iterator.next();
        // Once the first token arrives the prompt is in the sequence's state: what it holds beyond the reused
        // prefix is what the engine evaluated (its token meter books the last prompt token as output).
        evaluated ??= sequence.nextTokenIndex - reused;
        if (step.done) break;
        const token = step.value as number;
        if (model.isEndOfGeneration(token)) break;
        generated.push(token);
        model.generatedTokens++;
        pending.push(token);
        const piece = model.detokenize(pending, generated.slice(-pending.length - LOOKBACK_TOKENS, -pending.length));
        if (!piece.endsWith('\uFFFD') || pending.length >= MAX_PENDING_TOKENS) {
          text += piece;
          pending = [];
        }
        const stopAt = input.stop.length > 0 ? Math.min(...input.stop.map((s) => text.indexOf(s, Math.max(0, emitted - s.length))).filter((i) => i >= 0)) : Infinity;
        if (Number.isFinite(stopAt)) {
          text = text.slice(0, stopAt);
          if (text.length > emitted) yield text.slice(emitted);
          emitted = text.length;
          break;
        }
        const ready = text.length - heldBack(text, input.stop);
        if (ready > emitted) {
          yield text.slice(emitted, ready);
          emitted = ready;
        }
        if (generated.length >= limit) {
          finishReason = 'length';
          break;
        }
      }
    }
    if (emitted < text.length) yield text.slice(emitted);
  } finally {
    await iterator.return(undefined);
  }
  const promptEvaluated = evaluated ?? prompt.length - reused;
  // The prompt as the engine consumed it: the cached prefix plus what it evaluated now.
  const promptTokens = reused + promptEvaluated;
  return {
    finishReason,
    usage: { prompt_tokens: promptTokens, completion_tokens: generated.length, total_tokens: promptTokens + generated.length, cached_tokens: reused },
    evaluatedPromptTokens: promptEvaluated,
    evalMs: performance.now() - started,
  };
}
