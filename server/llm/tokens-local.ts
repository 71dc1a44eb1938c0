/**
 * Optional in-process exact counting from a configured `tokenizer.json` (decision 7), through
 * `@huggingface/tokenizers`. It saves the router round trips for plain and record counts.
 *
 * Chat prompts are different: an exact chat count needs the model's chat template rendered exactly as the
 * router renders it. `tokenizer.json` carries no template and the hub has no Jinja engine, so a local
 * tokenizer counts chats only when the deployment supplies `renderChat`; otherwise chat counts stay on the
 * router (`/v1/chat/completions/input_tokens`, or `/apply-template` + `/tokenize`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Tokenizer } from '@huggingface/tokenizers';
import type { ChatMessage } from './types';

/** The prompt-shaping part of a chat request; sampling and output fields never change the prompt. */
export interface ChatCountRequest {
  model: string;
  messages: ChatMessage[];
  tools?: unknown;
  tool_choice?: unknown;
  chat_template_kwargs?: unknown;
}

export interface LocalTokenizer {
  /** Router model ids this tokenizer is exact for; empty = every model. */
  readonly models: readonly string[];
  /**
   * Tokens of `text` without BOS/EOS (the router's `add_special:false`). Added special tokens are always
   * recognised (the router's `parse_special:true`): tokenizers.js has no switch for it.
   */
  count(text: string): number;
  /** Renders the chat prompt exactly as the router's template does; absent → chat counts stay on the router. */
  renderChat?(req: ChatCountRequest): string;
}

export interface LocalTokenizerOptions {
  models?: readonly string[];
  renderChat?: (req: ChatCountRequest) => string;
}

/** True when `local` may count for `model`. */
export function localFor(local: LocalTokenizer | null | undefined, model: string): local is LocalTokenizer {
  return !!local && (local.models.length === 0 || local.models.includes(model));
}

/**
 * Loads `tokenizer.json` (and `tokenizer_config.json` beside it, when present). Meant for start-up:
 * it throws an Error naming the file when it cannot be read or tokenizers.js cannot build it, so a bad
 * configuration fails fast instead of at the first request.
 */
export function loadLocalTokenizer(path: string, opts: LocalTokenizerOptions = {}): LocalTokenizer {
  const tokenizerJson = readJson(path);
  const configPath = join(dirname(path), 'tokenizer_config.json');
  const config = existsSync(configPath) ? readJson(configPath) : {};
  let tokenizer: Tokenizer;
  try {
    // Loaded only when a tokenizer.json is configured: a hub without one never pays for the module.
    const { Tokenizer: TokenizerClass } = require('@huggingface/tokenizers') as typeof import('@huggingface/tokenizers');
    tokenizer = new TokenizerClass(tokenizerJson, config);
    tokenizer.encode('probe', { add_special_tokens: false }); // surfaces unsupported components now
  } catch (err) {
    throw new Error(`Cannot build a tokenizer from ${path}: ${(err as Error).message}`);
  }
  return fromTokenizer(tokenizer, opts);
}

/** Wraps an already built tokenizers.js `Tokenizer` (tests, or a deployment that builds its own). */
export function fromTokenizer(tokenizer: Tokenizer, opts: LocalTokenizerOptions = {}): LocalTokenizer {
  const local: LocalTokenizer = {
    models: [...(opts.models ?? [])],
    count: (text) => (text === '' ? 0 : tokenizer.encode(text, { add_special_tokens: false }).ids.length),
  };
  if (opts.renderChat) local.renderChat = opts.renderChat;
  return local;
}

function readJson(path: string): object {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`Cannot read tokenizer file ${path}: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`Tokenizer file ${path} is not a JSON object.`);
  return parsed;
}
