/**
 * Context re-selection after gather (hub-contract §4.4): on exact-budget profiles the Answer's
 * context view is selected again against the Answer request that now carries the gathered text, so
 * its token cost is accounted exactly (trace step `context_reselection`). The shared context message
 * changes only when the gathered text leaves less room for records. If even the mandatory records
 * no longer fit beside it, the gathered text is dropped and the first selection stands — gathered
 * notes are an aid, never a reason to refuse the turn.
 */
import { InsufficientContextError } from '../../errors';
import { selectAnswerContext } from '../context-selection';
import type { EngineDeps, TurnState } from '../types';

type HistorySummary = { dropped_turns: string[]; stripped_citation_tokens: number; fixed_input_tokens: number | null } | null;

/** The first selection's history work, then the re-selection's (it starts from the already fitted history). */
function mergedHistory(first: HistorySummary, again: HistorySummary): HistorySummary {
  if (!first || !again) return again ?? first;
  return { ...again, dropped_turns: [...first.dropped_turns, ...again.dropped_turns], stripped_citation_tokens: first.stripped_citation_tokens + again.stripped_citation_tokens };
}

export async function reselectAnswerContext(turn: TurnState, deps: EngineDeps): Promise<void> {
  if (!turn.ledger) return;
  const chars = turn.gather.text.length;
  if (!turn.profile.context.exactTokenizer || !turn.profile.models.answer) {
    // The whole chart goes unmeasured: only the summary learns of the gathered text.
    if (turn.context) turn.context = { ...turn.context, derived_context_chars: chars };
    return;
  }
  if (chars === 0) {
    // Nothing gathered: the first selection already measured this very Answer request.
    turn.steps.push({ role: 'context_reselection', stage: 'answer', outcome: 'unchanged', reason: 'nothing_gathered', gathered_chars: 0 });
    return;
  }
  const before = { context: turn.context, contextMessage: turn.contextMessage, conversation: turn.conversation };
  try {
    await selectAnswerContext(turn, deps, turn.ledger, 'context_reselection');
    if (turn.context) turn.context = { ...turn.context, history: mergedHistory(before.context?.history as HistorySummary, turn.context.history as HistorySummary) };
  } catch (err) {
    if (turn.signal.aborted || !(err instanceof InsufficientContextError)) throw err;
    Object.assign(turn, before);
    turn.gather.text = '';
    turn.steps.push({ role: 'context_reselection', stage: 'answer', outcome: 'gathered_dropped', reason: 'insufficient_context', gathered_chars: chars });
  }
}
