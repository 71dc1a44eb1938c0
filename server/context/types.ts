/** Evidence types shared by context sources, the selector, checks and reference resolution (§5.1). */

export type DateKind = 'clinical_event' | 'administrative' | 'unknown';
export type SliceTier = 'mandatory' | 'exact' | 'recency_anchor' | 'typed' | 'similarity' | 'panel';
/** Slice tiers in the order QueryStore lists them (clients.md §4): earlier tiers rank higher. */
export const SLICE_TIERS: readonly SliceTier[] = ['mandatory', 'exact', 'recency_anchor', 'typed', 'similarity', 'panel'];

export interface EvidenceRecord {
  stableId: string;
  source: string;
  sourcePriority: number;
  resourceType: string;
  resourceUuid: string | null;
  /** Sort date, YYYY-MM-DD (carried forward for run-length compressed inline charts). */
  date: string | null;
  /** Record text without the `[N]` marker and without the `(date)` prefix. */
  text: string;
  mandatory: boolean;
  clinicalDate?: string | null;
  dateKind?: DateKind | null;
  querystoreRank?: number | null;
  sliceTier?: SliceTier | null;
  metadata: Record<string, unknown>;
  raw: Record<string, unknown>;
}

export interface EvidenceLedger {
  records: EvidenceRecord[];
  /** The chart exactly as the client sent it (kept only when one source contributed). */
  originalText: string;
  /** Lines before the first record (e.g. `Patient: 41-year-old Male`). */
  preamble: string;
  /** Names of the sources that contributed. */
  sources: string[];
}

/** A source's account of one fetch, for the trace: counts, outcomes and ids only, never record text or patient ids. */
export interface SourceReport {
  source: string;
  [detail: string]: unknown;
}

export function emptyLedger(): EvidenceLedger {
  return { records: [], originalText: '', preamble: '', sources: [] };
}
