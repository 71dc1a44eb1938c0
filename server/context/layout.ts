/**
 * Prompt layout (decision 8): every stage of one answer sends the same context message first
 * (temporal facts, then the records) and its own instructions after it, so the router's prompt
 * cache reads the context once per answer. Two layouts carry it:
 * - joined (the default): everything in one user message, because several chat templates (Gemma 3's
 *   among them) refuse two user messages in a row or a mid-conversation system message; the shared
 *   text is still a byte-identical prefix of every stage's prompt;
 * - split: the context as a user message of its own and the stage's text as a second one, for a model
 *   whose template was probed to write a special token between them (llm/context-partition.ts). The
 *   token seals the context off, so a later stage's prompt is provably at most the Answer's exact count
 *   plus its own bytes (decision 27) and needs no count of its own.
 */
import { CHART_MARKER, contentText, type ChatMessageLike } from './inline-chart';
import { SharedBlock, blockMessage, type ChatMessage } from '../llm';

export interface StageInstructions {
  /** The stage's prompt file text. */
  instructions: string;
  /** Prior user/assistant turns (prose only). */
  history: readonly ChatMessageLike[];
  question: string;
}

/** The shared first block: temporal facts (when present) then the chart. */
export function buildContextMessage(parts: { temporalFacts?: string; chart: string }): SharedBlock {
  const blocks: string[] = [];
  if (parts.temporalFacts) blocks.push(parts.temporalFacts);
  // trimEnd, not `/\s+$/`: the regex retried a blank run from each of its positions (quadratic).
  blocks.push(`${CHART_MARKER}\n${parts.chart.trimEnd()}`);
  return new SharedBlock(blocks.join('\n\n'));
}

function historyText(history: readonly ChatMessageLike[]): string {
  const lines = history
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m) => `${m.role === 'user' ? 'Clinician' : 'Assistant'}: ${contentText(m.content).trim()}`);
  return lines.length ? `=== EARLIER CONVERSATION ===\n${lines.join('\n')}\n\n` : '';
}

/** The stage's messages: the context block first, then its instructions, history and question (joined or split). */
export function stageMessages(context: SharedBlock, stage: StageInstructions, layout: PromptLayout = 'joined'): ChatMessage[] {
  const tail = `${stage.instructions.trim()}\n\n${historyText(stage.history)}=== QUESTION ===\n${stage.question.trim()}`;
  if (layout === 'split') return [blockMessage('user', context, ''), { role: 'user', content: tail }];
  return [blockMessage('user', context, `\n\n${tail}`)];
}

export type PromptLayout = 'joined' | 'split';

/** Length of the common leading text of two prompts (the part a prompt cache can reuse). */
export function commonPrefix(a: string, b: string): string {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return a.slice(0, i);
}

/**
 * How many of a later stage's prompt tokens are a prefix shared with the Answer prompt (decision 8),
 * counted exactly with the given counter on the shared text. Reported per stage in the trace.
 */
export async function prefixShare(
  answerPrompt: string,
  stagePrompt: string,
  count: (text: string) => Promise<number>,
): Promise<{ prompt_tokens: number; shared_prefix_tokens: number; ratio: number }> {
  const [total, shared] = await Promise.all([count(stagePrompt), count(commonPrefix(answerPrompt, stagePrompt))]);
  return { prompt_tokens: total, shared_prefix_tokens: shared, ratio: total > 0 ? shared / total : 0 };
}
