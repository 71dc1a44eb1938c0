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
import { adoptContextView } from '../slices/context';
import { recordStep } from '../steps';
import type { EngineDeps, TurnState } from '../types';
import { dropGathered } from './loop';

type HistorySummary = { dropped_turns: string[]; stripped_citation_tokens: number; fixed_input_tokens: number | null } | null;

/** The first selection's history work, then the re-selection's (it starts from the already fitted history). */
function mergedHistory(first: HistorySummary, again: HistorySummary): HistorySummary {
  if (!first || !again) return again ?? first;
  return { ...again, dropped_turns: [...first.dropped_turns, ...again.dropped_turns], stripped_citation_tokens: first.stripped_citation_tokens + again.stripped_citation_tokens };
}

export async function reselectAnswerContext(turn: TurnState, deps: EngineDeps): Promise<void> {
  if (!turn.context.ledger) return;
  const chars = turn.gather.text.length;
  if (!turn.profile.context.exactTokenizer || !turn.profile.models.answer) {
    // The whole chart goes unmeasured: only the summary learns of the gathered text.
    const summary = turn.context.summary;
    if (summary) adoptContextView(turn, { summary: { ...summary, derived_context_chars: chars } });
    return;
  }
  if (chars === 0) {
    // Nothing gathered: the first selection already measured this very Answer request.
    recordStep(turn, { role: 'context_reselection', stage: 'answer', outcome: 'unchanged', reason: 'nothing_gathered', gathered_chars: 0 });
    return;
  }
  const before = { summary: turn.context.summary, contextMessage: turn.context.contextMessage, conversation: turn.context.conversation };
  try {
    await selectAnswerContext(turn, deps, turn.context.ledger, 'context_reselection');
    const summary = turn.context.summary;
    if (summary) adoptContextView(turn, { summary: { ...summary, history: mergedHistory(before.summary?.history ?? null, summary.history) } });
  } catch (err) {
    if (turn.signal.aborted || !(err instanceof InsufficientContextError)) throw err;
    adoptContextView(turn, before);
    dropGathered(turn.gather);
    recordStep(turn, { role: 'context_reselection', stage: 'answer', outcome: 'gathered_dropped', reason: 'insufficient_context', gathered_chars: chars });
  }
}
