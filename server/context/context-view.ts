/**
 * The `context_view.v1` summary (§5.10) that envelopes and the trace carry: which ledger records
 * the Answer prompt saw and why, the exact token budget, and what history fitting did.
 */
import type { HistoryFit } from './history';
import type { ChatMessageLike } from './inline-chart';
import type { ContextView } from './selector';
import type { EvidenceLedger } from './types';

export interface ContextViewSummary {
  schema_version: 'context_view.v1';
  sources: string[];
  /** Every record of the ledger: the chart's and the supplemental sources' (knowledge, drug references). */
  ledger_records: number;
  /** The same count per source (`inline` or `querystore`: the chart's own records), so a caller tells its records from added ones. */
  records_by_source: Record<string, number>;
  selection_mode: 'full' | 'selected' | 'none';
  included_ids: string[];
  included: Array<{ source_id: string; reason: string }>;
  excluded: Array<{ source_id: string; reason: string }>;
  input_tokens: number | null;
  input_limit: number | null;
  history: { dropped_turns: string[]; stripped_citation_tokens: number; fixed_input_tokens: number | null } | null;
  derived_context_chars: number;
}

export interface ContextSummaryOptions {
  /** True for `exact_tokenizer` profiles; the others send the whole chart unmeasured. */
  exactTokens: boolean;
  history?: Pick<HistoryFit<ChatMessageLike>, 'dropped_turns' | 'stripped_citation_tokens' | 'fixed_input_tokens'> | null;
  /** Length of the gathered expert text (team profiles), 0 when none. */
  derivedContextChars?: number;
}

/** Records per source, in ledger order of first appearance. */
function recordsBySource(ledger: EvidenceLedger): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of ledger.records) counts[r.source] = (counts[r.source] ?? 0) + 1;
  return counts;
}

const asWire = (items: ReadonlyArray<{ stableId: string; reason: string }>) => items.map((i) => ({ source_id: i.stableId, reason: i.reason }));

/**
 * Summarises the Answer's context view. Non-exact profiles report a `full` view with 0/0 tokens
 * (they never measure); with no view and no exact full chart, the mode is `none`.
 */
export function contextSummary(view: ContextView | null, ledger: EvidenceLedger, opts: ContextSummaryOptions): ContextViewSummary {
  const base = {
    schema_version: 'context_view.v1' as const,
    sources: [...ledger.sources],
    ledger_records: ledger.records.length,
    records_by_source: recordsBySource(ledger),
    history: opts.history
      ? { dropped_turns: [...opts.history.dropped_turns], stripped_citation_tokens: opts.history.stripped_citation_tokens, fixed_input_tokens: opts.history.fixed_input_tokens }
      : null,
    derived_context_chars: opts.derivedContextChars ?? 0,
  };
  if (!opts.exactTokens && ledger.records.length > 0) {
    const ids = ledger.records.map((r) => r.stableId);
    return { ...base, selection_mode: 'full', included_ids: ids, included: ids.map((id) => ({ source_id: id, reason: 'full_context' })), excluded: [], input_tokens: 0, input_limit: 0 };
  }
  if (view === null) {
    return { ...base, selection_mode: 'none', included_ids: [], included: [], excluded: [], input_tokens: null, input_limit: null };
  }
  return {
    ...base,
    selection_mode: view.mode,
    included_ids: view.included.map((i) => i.stableId),
    included: asWire(view.included),
    excluded: asWire(view.excluded),
    input_tokens: view.inputTokens,
    input_limit: view.inputLimit,
  };
}
