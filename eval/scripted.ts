/**
 * Scripted mode's model: which reply the fake router gives to the turn asking a question. A job registers
 * the reply before its turn and clears it after; the router finds the turn by the scenario's question in
 * the prompt (questions are unique in a scripted run, and one job asks one question at a time).
 */
import type { ScriptedReply } from './scenarios';

/** The In-Depth stage's prompt names the Answer it expands; the scripted In-Depth adds no claims. */
const INDEPTH_MARKER = 'DIRECT ANSWER';
const EMPTY_INDEPTH = JSON.stringify({ claims: [] });

export class ScriptedReplies {
  private readonly byQuestion = new Map<string, ScriptedReply>();
  /** Router chat requests that matched no registered question (a bug in the run; the report says so). */
  unmatched = 0;

  set(question: string, reply: ScriptedReply): void {
    this.byQuestion.set(question, reply);
  }

  clear(question: string): void {
    this.byQuestion.delete(question);
  }

  /** The content the router sends back for one chat request body. */
  replyTo(body: unknown): string {
    const text = promptText(body);
    if (text.includes(INDEPTH_MARKER)) return EMPTY_INDEPTH;
    let best: [string, ScriptedReply] | null = null;
    for (const entry of this.byQuestion) {
      if (text.includes(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
    }
    if (!best) {
      this.unmatched++;
      return JSON.stringify({ answer: '', citations: [], blocks: [] });
    }
    return JSON.stringify({ answer: best[1].answer, citations: best[1].citations, blocks: [] });
  }
}

function promptText(body: unknown): string {
  const messages = (body as { messages?: unknown })?.messages;
  if (!Array.isArray(messages)) return '';
  return messages.map((m) => {
    const content = (m as { content?: unknown })?.content;
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
    return '';
  }).join('\n');
}
