/**
 * The writer's reusable prefix (clients.md §5): Catalyst's user content is one compact JSON object whose
 * keys run `target, catalog, policy, requiredOutputContract, question, …` — catalog before question on
 * purpose, so everything before `,"question":` is the same for every question about one catalog.
 * Warm sends only that part, so the router's prompt cache holds it when the real question comes.
 */
import type { ChatMessage } from '../llm';

export const QUESTION_MARKER = ',"question":';

/** The messages with the last one cut just before its question; unchanged when there is no marker. */
export function warmPrefixMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  const out = [...messages];
  const last = out[out.length - 1];
  if (!last || typeof last.content !== 'string') return out;
  const at = last.content.indexOf(QUESTION_MARKER);
  if (at <= 0) return out;
  out[out.length - 1] = { ...last, content: last.content.slice(0, at) };
  return out;
}
