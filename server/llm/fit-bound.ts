/**
 * Proving that a prompt fits without counting it first (decision 24). Decision 7 forbids estimates,
 * not proofs: when the model's tokenizer spends at least one byte per token, no rendered prompt has
 * more tokens than bytes, so
 *
 *   prompt tokens ≤ UTF-8 bytes of the messages' contents + bytes of the chat template around them
 *                   + the special tokens the router adds itself (BOS/EOS)
 *
 * is a sound upper bound. The template's bytes come from the router itself (`/apply-template` on the
 * same roles with empty contents), and the one-byte-per-token property from a capability probe
 * (`/tokenize` with pieces over text of every kind the hub sends). Both are asked once per model (and
 * role sequence) for the life of the process. A call whose bound fits the window skips its pre-call
 * count; the exact figure is then the router's reported `prompt_tokens`. Without the capabilities, or
 * when the bound does not fit (a prompt near the limit), the caller counts exactly as before.
 */
import { probeContextPartition, type ContextPartition } from './context-partition';
import { blockParts, type SharedBlock } from './shared-block';
import type { ChatMessage, ChatRequest, RouterClient } from './types';

/** The Answer's exact prompt tokens, and the context block and model they were measured on. */
export interface AnswerAnchor {
  model: string;
  block: SharedBlock;
  tokens: number;
}

export interface FitBounds {
  /** A sound upper bound on the prompt tokens of `req` from its bytes alone, or null when none can be proven. */
  bound(req: ChatRequest): Promise<number | null>;
  /**
   * Decision 27: a sound upper bound on a later stage's prompt tokens from the Answer's exact count plus the
   * bytes of the stage's own text, or null when it cannot be proven (another model or block, another layout,
   * a template without the partition, a tokenizer that fails the byte premise).
   */
  anchoredBound(req: ChatRequest, anchor: AnswerAnchor): Promise<number | null>;
  /** Whether the model's template seals a context message off with a special token (context-partition.ts). */
  partitions(model: string): Promise<boolean>;
}

/**
 * Probe text: words, digits and dates, punctuation, whitespace runs, accents, other scripts, emoji and
 * template-like markup, so that a tokenizer with multi-token bytes anywhere fails the probe.
 */
export const FIT_PROBE_TEXT = [
  'Patient records (most recent first):\n[1] (2026-03-02) Finding — Weight (kg): 71.5 kg; BP 120/80 mmHg.',
  '   \t\t  \n\n\r\n  indentation\u00a0and\u2028separators',
  'Créatinine élevée, naïve café; Größe 1,82 m; ñandú; Ærø',
  '血压正常。体重下降。 Давление в норме. ضغط الدم طبيعي. रक्तचाप सामान्य है।',
  '😀👍🏽🇫🇷 ∑ ≤ ≥ ± µg/L ½ ℃ ⁻¹ ²',
  '<start_of_turn>user <|im_start|>assistant {"answer":"…","citations":[1,2]} \\u0000 `code` ~~~',
].join('\n');

/** Role sequences cached per model (a stage prompt has one message; histories are inside it). */
const TEMPLATE_CACHE_LIMIT = 64;
/** How long a failed probe is believed before it is asked again. */
export const PROBE_RETRY_MS = 60_000;
/** Tokens the router may add beyond the rendered text (a BOS or EOS it inserts itself). */
const ADDED_SPECIAL_TOKENS = 2;

export function createFitBounds(router: RouterClient): FitBounds {
  const premise = new Map<string, Promise<boolean>>();
  const templates = new Map<string, Promise<number>>();
  const partitionsByModel = new Map<string, Promise<ContextPartition | null>>();

  /**
   * Shared, process-wide answers. A failed probe (a router without the endpoint, or one that is down)
   * stays failed for PROBE_RETRY_MS, so a router without /tokenize costs one extra request a minute,
   * not one per call; after that a later call asks again.
   */
  const once = <T>(cache: Map<string, Promise<T>>, key: string, ask: () => Promise<T>): Promise<T> => {
    let pending = cache.get(key);
    if (!pending) {
      if (cache.size >= TEMPLATE_CACHE_LIMIT) cache.clear();
      pending = ask();
      cache.set(key, pending);
      const asked = pending;
      asked.catch(() => setTimeout(() => cache.get(key) === asked && cache.delete(key), PROBE_RETRY_MS).unref());
    }
    return pending;
  };

  const bytePerTokenHolds = (model: string) =>
    once(premise, model, async () => {
      const probe = await router.tokenize({ model, content: FIT_PROBE_TEXT, add_special: false, parse_special: false, with_pieces: true });
      return spendsAByteAPiece(probe.count, probe.pieces, Buffer.byteLength(FIT_PROBE_TEXT, 'utf8'));
    });

  const templateBytes = (model: string, roles: readonly string[]) =>
    once(templates, `${model}\u0000${roles.join('\u0000')}`, async () => {
      const rendered = await router.applyTemplate({ model, messages: roles.map((role) => ({ role, content: '' })) });
      return Buffer.byteLength(rendered, 'utf8');
    });

  /** The partition of a model whose tokenizer also passes the byte premise; null otherwise (never throws). */
  const partition = async (model: string): Promise<ContextPartition | null> => {
    try {
      if (!(await bytePerTokenHolds(model))) return null;
      return await once(partitionsByModel, model, () => probeContextPartition(router, model));
    } catch {
      return null;
    }
  };

  return {
    partitions: async (model) => (await partition(model)) !== null,
    async anchoredBound(req, anchor) {
      const own = stageTextBytes(req, anchor);
      if (own === null) return null;
      const p = await partition(req.model);
      return p === null ? null : anchor.tokens + p.templateBytesAfterContext + ADDED_SPECIAL_TOKENS + own;
    },
    async bound(req) {
      // Tools and template arguments change what the template renders: only plain chats are bounded.
      if (req.tools !== undefined || req.tool_choice !== undefined || req.chat_template_kwargs !== undefined) return null;
      const contents = req.messages.map(contentBytes);
      if (contents.some((n) => n === null)) return null;
      try {
        if (!(await bytePerTokenHolds(req.model))) return null;
        const around = await templateBytes(req.model, req.messages.map((m) => m.role));
        return around + ADDED_SPECIAL_TOKENS + (contents as number[]).reduce((a, b) => a + b, 0);
      } catch {
        // A router without /tokenize pieces or /apply-template gives no proof: the caller counts exactly.
        return null;
      }
    },
  };
}

/** The probe's verdict: every token carries at least one byte, so tokens never outnumber bytes. */
export function spendsAByteAPiece(count: number, pieces: readonly Uint8Array[] | undefined, bytes: number): boolean {
  if (!pieces || pieces.length !== count) return false;
  return count <= bytes && pieces.every((p) => p.length >= 1);
}

/** UTF-8 bytes of a message's text (a shared block's are computed once per turn); null for non-text content. */
function contentBytes(m: ChatMessage): number | null {
  const parts = blockParts(m);
  if (parts) return parts.block.utf8Length() + Buffer.byteLength(parts.tail, 'utf8');
  return typeof m.content === 'string' ? Buffer.byteLength(m.content, 'utf8') : null;
}

/**
 * UTF-8 bytes of a stage's own text when `req` is the partitioned layout on the anchor's context: exactly two
 * plain user messages, the first the anchor's block alone, same model, no tools or template arguments.
 * Null for any other shape, which the anchor says nothing about.
 */
export function stageTextBytes(req: ChatRequest, anchor: AnswerAnchor): number | null {
  if (req.model !== anchor.model || req.tools !== undefined || req.tool_choice !== undefined || req.chat_template_kwargs !== undefined) return null;
  if (req.messages.length !== 2) return null;
  const [context, stage] = req.messages;
  const parts = blockParts(context);
  if (!parts || parts.block !== anchor.block || parts.tail !== '' || context.role !== 'user') return null;
  if (stage.role !== 'user' || typeof stage.content !== 'string' || blockParts(stage)) return null;
  return Buffer.byteLength(stage.content, 'utf8');
}
