/**
 * The turn's context slice (`turn.context`): the question, the conversation history, the complete
 * evidence ledger, the temporal facts and the Answer's context view. Written only here; the context
 * stage, the context selection, team gather's re-selection, the review leg and In-Depth call the named
 * writers below, every other module reads the slice.
 */
import type { TemporalFacts } from '../../checks/temporal';
import type { ContextViewSummary, ChatMessageLike, EvidenceLedger } from '../../context';
import { SharedBlock } from '../../llm';
import type { Writable } from './writable';

export interface ContextSlice {
  /** The user's question, once the context stage (or the review leg's payload) set it; '' before. */
  readonly question: string;
  /** Conversation messages other than the chart message(s), in order (system messages dropped). */
  readonly conversation: readonly ChatMessageLike[];
  /** The complete ledger (patient records, then supplemental sources and drug references). */
  readonly ledger: EvidenceLedger | null;
  /** The context block every stage sends first (decision 8). */
  readonly contextMessage: SharedBlock;
  /** The context summary (`context_view.v1`) once the context stage ran. */
  readonly summary: ContextViewSummary | null;
  /** Reference date ("today") resolved once for the request (§4.7). */
  readonly referenceDate: string | null;
  readonly facts: TemporalFacts | null;
}

/** What a context selection decides: the fitted history, the context block and its summary. */
export type ContextView = Pick<ContextSlice, 'conversation' | 'contextMessage' | 'summary'>;

type HasContext = { readonly context: ContextSlice };

export function newContextSlice(): ContextSlice {
  return { question: '', conversation: [], ledger: null, contextMessage: new SharedBlock(''), summary: null, referenceDate: null, facts: null };
}

function own(turn: HasContext): Writable<ContextSlice> {
  return turn.context;
}

/** The chart's question and the prior prose turns, as the context stage read them from the request. */
export function openChart(turn: HasContext, question: string, conversation: readonly ChatMessageLike[]): void {
  const slice = own(turn);
  slice.question = question;
  slice.conversation = conversation;
}

export function noteTemporalFacts(turn: HasContext, referenceDate: string | null, facts: TemporalFacts | null): void {
  const slice = own(turn);
  slice.referenceDate = referenceDate;
  slice.facts = facts;
}

/** The complete ledger every stage and reference reads. */
export function adoptLedger(turn: HasContext, ledger: EvidenceLedger): void {
  own(turn).ledger = ledger;
}

/** A context selection's result (or, after a re-selection that could not fit, the one it replaced). */
export function adoptContextView(turn: HasContext, view: Partial<ContextView>): void {
  const slice = own(turn);
  if (view.conversation !== undefined) slice.conversation = view.conversation;
  if (view.contextMessage !== undefined) slice.contextMessage = view.contextMessage;
  if (view.summary !== undefined) slice.summary = view.summary;
}

/** The `answer-review:` leg reviews the question the caller's payload names. */
export function adoptReviewedQuestion(turn: HasContext, question: string): void {
  own(turn).question = question;
}

/** Drops one history message (In-Depth elaborates the last assistant message instead of repeating it). */
export function dropHistoryMessage(turn: HasContext, index: number): void {
  const slice = own(turn);
  slice.conversation = slice.conversation.filter((_, i) => i !== index);
}
