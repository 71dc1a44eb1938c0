/**
 * Conversation history fitting (§5.8), run for exact-token profiles before context selection.
 *
 * Prior assistant answers lose their `[N]` citation markers: they pointed into the ledger of an
 * earlier turn and would mislead the model (and the reader) against this turn's ledger. Then, while
 * the measured Answer prompt — with only mandatory evidence as its chart — is over the input limit,
 * the oldest completed turns are dropped. The latest completed turn and the current question are
 * never dropped: without them a follow-up question loses its referent, so the hub abstains instead.
 */
import { contextError } from '../errors';
import type { ChatMessageLike } from './inline-chart';

/**
 * `[3]`, `[1, 2]`, `[4-6]` with the horizontal space before it, so no gap is left before punctuation.
 * Starts only where a space run starts (`(?<![ \t])`), else a long run is rescanned from each of its
 * positions (quadratic); a match from inside a run also matches from its start, so results are the same.
 */
const CITATION_MARKER = /(?<![ \t])[ \t]*\[\d+(?:\s*[,;–-]\s*\d+)*\]/g;

export interface StrippedConversation<M extends ChatMessageLike> {
  messages: M[];
  /** Number of citation markers removed. */
  stripped: number;
}

function stripText(text: string): { text: string; count: number } {
  let count = 0;
  const out = text
    .replace(CITATION_MARKER, () => {
      count++;
      return '';
    })
    .replace(/ {2,}/g, ' ')
    // A trailing run is matched from its first space only (a lookbehind), not retried from each of its spaces.
    .replace(/^ +|(?<! ) +$/gm, '');
  return { text: out, count };
}

/** Removes `[N]` markers from prior assistant messages and collapses the space they leave. */
export function stripPriorCitations<M extends ChatMessageLike>(messages: readonly M[]): StrippedConversation<M> {
  let stripped = 0;
  const out = messages.map((m) => {
    if (m.role !== 'assistant') return m;
    if (typeof m.content === 'string') {
      const r = stripText(m.content);
      stripped += r.count;
      return { ...m, content: r.text };
    }
    if (Array.isArray(m.content)) {
      // OpenAI content parts: strip the text parts, keep anything else as sent.
      const parts = m.content.map((p: unknown) => {
        if (!p || typeof p !== 'object' || (p as { type?: unknown }).type !== 'text') return p;
        const r = stripText(String((p as { text?: unknown }).text ?? ''));
        stripped += r.count;
        return { ...(p as object), text: r.text };
      });
      return { ...m, content: parts };
    }
    return m;
  });
  return { messages: out, stripped };
}

/**
 * Splits a conversation into turns. A turn starts at a user message and runs until the next user
 * message that follows an assistant reply; leading non-user messages belong to the first turn.
 * A turn is completed when it holds a user message and an assistant reply.
 */
export function splitTurns<M extends ChatMessageLike>(messages: readonly M[]): { turns: M[][]; completed: boolean[] } {
  const turns: M[][] = [];
  const completed: boolean[] = [];
  let current: M[] = [];
  // Tracked as messages arrive: re-scanning the open turn for every message is quadratic when a
  // client sends thousands of messages without a reply.
  let hasUser = false;
  let hasAssistant = false;
  for (const m of messages) {
    if (m.role === 'user' && hasUser && hasAssistant) {
      turns.push(current);
      completed.push(true);
      current = [];
      hasAssistant = false;
    }
    current.push(m);
    if (m.role === 'user') hasUser = true;
    if (m.role === 'assistant') hasAssistant = true;
  }
  if (current.length > 0) {
    turns.push(current);
    completed.push(hasUser && hasAssistant);
  }
  return { turns, completed };
}

export interface FitHistoryInput<M extends ChatMessageLike> {
  /** Prior user/assistant messages (chart messages removed); a trailing unanswered question is protected. */
  conversation: readonly M[];
  inputLimit: number;
  /** Exact tokens of the Answer prompt with this history and only mandatory evidence as chart. */
  measure(history: M[]): Promise<number>;
  /** Reported with an overflow, like the selector's error. */
  mandatoryIds?: readonly string[];
}

export interface HistoryFit<M extends ChatMessageLike> {
  history: M[];
  /** `turn:<n>` of each dropped completed turn, oldest first (1-based over completed turns). */
  dropped_turns: string[];
  stripped_citation_tokens: number;
  /** The last exact measurement, or null when nothing was droppable and nothing was measured. */
  fixed_input_tokens: number | null;
}

export async function fitHistory<M extends ChatMessageLike>(input: FitHistoryInput<M>): Promise<HistoryFit<M>> {
  const { messages, stripped } = stripPriorCitations(input.conversation);
  const { turns, completed } = splitTurns(messages);
  const completedAt = turns.map((_, i) => i).filter((i) => completed[i]);
  // Every completed turn but the latest may go, and only from the front (turn order is preserved).
  const droppable = Math.max(0, completedAt.length - 1);
  if (droppable === 0) return { history: messages, dropped_turns: [], stripped_citation_tokens: stripped, fixed_input_tokens: null };

  const keptFrom = (dropped: number): M[] => turns.slice(dropped === 0 ? 0 : completedAt[dropped - 1] + 1).flat();
  // Dropping more turns never adds tokens, so the fewest drops that fit are found by galloping then
  // bisecting: O(log n) exact counts instead of one per dropped turn (a long conversation would
  // otherwise cost hundreds of router calls before the Answer is even asked for).
  const measured = new Map<number, number>();
  const tokensAt = async (dropped: number): Promise<number> => {
    let t = measured.get(dropped);
    if (t === undefined) measured.set(dropped, (t = await input.measure(keptFrom(dropped))));
    return t;
  };
  const fits = async (dropped: number) => (await tokensAt(dropped)) <= input.inputLimit;
  let dropped = 0;
  if (!(await fits(0))) {
    let over = 0;
    let step = 1;
    let probe = Math.min(1, droppable);
    while (!(await fits(probe)) && probe < droppable) {
      over = probe;
      step *= 2;
      probe = Math.min(over + step, droppable);
    }
    dropped = probe;
    if (await fits(probe)) {
      // Invariant: `over` does not fit, `dropped` fits; bisect for the first that fits.
      while (dropped - over > 1) {
        const mid = over + Math.floor((dropped - over) / 2);
        if (await fits(mid)) dropped = mid;
        else over = mid;
      }
    }
  }
  const history = keptFrom(dropped);
  const tokens = await tokensAt(dropped);
  if (tokens > input.inputLimit) {
    const mandatoryIds = [...(input.mandatoryIds ?? [])];
    throw contextError(
      'insufficient_context',
      'selector',
      `The current question, latest completed turn, prompts, and mandatory evidence exceed the input limit (${tokens} > ${input.inputLimit} tokens).`,
      { mandatoryIds, mandatory_ids: mandatoryIds, input_tokens: tokens, input_limit: input.inputLimit },
    );
  }
  const droppedTurns = Array.from({ length: dropped }, (_, i) => `turn:${i + 1}`);
  return { history, dropped_turns: droppedTurns, stripped_citation_tokens: stripped, fixed_input_tokens: tokens };
}
