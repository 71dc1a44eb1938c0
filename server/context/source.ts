/** The context-source contract (§5.1): every source — inline, QueryStore, knowledge base — plugs in through it. */
import type { ChatMessageLike } from './inline-chart';
import type { EvidenceLedger, SourceReport } from './types';

export interface ContextRequest {
  messages: readonly ChatMessageLike[];
  patient: string | null;
  /** Resolved primary source names, in order. */
  sources: readonly string[];
  supplementalSources: readonly string[];
  /** The last user message. */
  question: string;
  /** True when the caller named the sources (then a source that has nothing is an error, not an empty ledger). */
  explicit: boolean;
  /** The ledger built so far by primary sources (the knowledge-base source builds its patient context from it). */
  primaryLedger?: EvidenceLedger;
  signal?: AbortSignal;
  /** Where a source tells the turn what it did (traced), on success and on failure. */
  report?: (report: SourceReport) => void;
}

export interface ContextSource {
  name: string;
  priority: number;
  supportsPatient: boolean;
  fetch(req: ContextRequest): Promise<EvidenceLedger>;
}
