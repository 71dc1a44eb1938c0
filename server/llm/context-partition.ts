/**
 * Whether a model's chat template seals the turn's shared context off from each stage's own text
 * (decision 27). llama.cpp tokenizes a chat prompt with special tokens parsed: it cuts the rendered text
 * at every special token and tokenizes the pieces between them one by one, never across a cut. When the
 * context is a user message of its own and the template writes a special token (a turn marker) between
 * it and the next user message, every stage prompt of the turn is
 *
 *   [template head + context + the markers up to that token] + [the rest of the markers + stage text + tail]
 *
 * and its first part is the same text, cut at the same special token, in the Answer and in every later
 * stage. So it costs the same tokens in each, at most the Answer's exact count; the second part costs at
 * most its bytes on a tokenizer that spends a byte per token (the fit bound's premise). The probe renders
 * two user messages with different second messages and checks that (1) the first renders the same
 * whatever follows, (2) the text between them is the same, and (3) that text holds a special token: with
 * special tokens parsed it is fewer tokens than as plain text. A template without such a marker (Llama 2's
 * `[INST]`, Gemma 3's folded turns) or one that refuses two user messages gives no partition.
 */
import type { RouterClient } from './types';

/** What the probe learned: the template bytes a stage adds after the shared context. */
export interface ContextPartition {
  /** UTF-8 bytes of the template text between the context and the stage text, plus after the stage text. */
  templateBytesAfterContext: number;
}

/** A context-like first message (multibyte, the chart's separators, a trailing record). */
export const PARTITION_PROBE_CONTEXT = 'Patient records (most recent first):\n[1] (2026-03-02) Finding — Weight (kg): 71 kg; Créatinine 88 µmol/L';

/**
 * Second messages that start and end the way stage text can: plain instructions, and text that opens with
 * marker look-alikes and punctuation that could join a marker before it.
 */
export const PARTITION_PROBE_TAILS = [
  'Answer from the numbered records.\n\n=== QUESTION ===\nHow has the weight changed?',
  '|>\n<turn|><|turn>user <end_of_turn> <|im_end|> ]] — ½ µg/L 😀',
];

export async function probeContextPartition(router: RouterClient, model: string): Promise<ContextPartition | null> {
  const renders = await Promise.all(
    PARTITION_PROBE_TAILS.map((tail) => router.applyTemplate({ model, messages: [{ role: 'user', content: PARTITION_PROBE_CONTEXT }, { role: 'user', content: tail }] })),
  );
  const parts = renders.map((rendered, i) => splitRender(rendered, PARTITION_PROBE_CONTEXT, PARTITION_PROBE_TAILS[i]));
  const first = parts[0];
  if (!first || parts.some((p) => p === null || p.head !== first.head || p.between !== first.between || p.after !== first.after)) return null;
  if (!(await holdsSpecialToken(router, model, first.between))) return null;
  return { templateBytesAfterContext: Buffer.byteLength(first.between, 'utf8') + Buffer.byteLength(first.after, 'utf8') };
}

/** `rendered` as head + context + between + tail + after, or null when either text is not there verbatim. */
export function splitRender(rendered: string, context: string, tail: string): { head: string; between: string; after: string } | null {
  const at = rendered.indexOf(context);
  if (at === -1) return null;
  const rest = rendered.slice(at + context.length);
  const tailAt = rest.indexOf(tail);
  if (tailAt === -1) return null;
  return { head: rendered.slice(0, at), between: rest.slice(0, tailAt), after: rest.slice(tailAt + tail.length) };
}

/** True when `text` tokenizes to fewer tokens with special tokens parsed than as plain text. */
async function holdsSpecialToken(router: RouterClient, model: string, text: string): Promise<boolean> {
  if (text === '') return false;
  const [parsed, plain] = await Promise.all([
    router.tokenize({ model, content: text, add_special: false, parse_special: true }),
    router.tokenize({ model, content: text, add_special: false, parse_special: false }),
  ]);
  return parsed.count < plain.count;
}
