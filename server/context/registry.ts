/**
 * Source registry and resolution (§5.2): which sources a request uses, fetched sequentially and
 * concatenated into one ledger in source order. Unknown names and patient requests no source can
 * serve are explicit errors, never an empty chart.
 */
import { contextError } from '../errors';
import type { ChatMessageLike } from './inline-chart';
import type { ContextRequest, ContextSource } from './source';
import { emptyLedger, type EvidenceLedger } from './types';

export interface SourceSelection {
  primary: string[];
  explicit: boolean;
}

export interface LedgerRequest {
  messages: readonly ChatMessageLike[];
  patient: string | null;
  context: { sources?: unknown; source?: unknown } | null;
  supplementalSources: readonly string[];
  question: string;
  /** Whether the messages hold an inline chart (the fallback when a patient source is missing). */
  hasInlineChart: boolean;
  signal?: AbortSignal;
  report?: ContextRequest['report'];
}

export class SourceRegistry {
  private readonly byName = new Map<string, ContextSource>();

  constructor(sources: readonly ContextSource[]) {
    for (const s of sources) this.byName.set(s.name, s);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** Primary sources: context.sources ?? [context.source] ?? patient source (or inline chart) ?? inline. */
  selectPrimary(req: Pick<LedgerRequest, 'context' | 'patient' | 'hasInlineChart'>): SourceSelection {
    const { sources, source } = req.context ?? {};
    if (sources !== undefined && sources !== null) {
      if (typeof sources === 'string') return { primary: [sources], explicit: true };
      if (Array.isArray(sources) && sources.length > 0 && sources.every((s) => typeof s === 'string')) return { primary: [...new Set(sources as string[])], explicit: true };
      throw contextError('context_source_unavailable', 'request', 'context.sources must be a non-empty list of source names or a single name.');
    }
    if (typeof source === 'string' && source.trim() !== '') return { primary: [source.trim()], explicit: true };
    if (req.patient !== null) {
      const patientSources = [...this.byName.values()].filter((s) => s.supportsPatient).sort((a, b) => b.priority - a.priority || a.name.localeCompare(b.name));
      if (patientSources.length) return { primary: [patientSources[0].name], explicit: false };
      if (req.hasInlineChart) return { primary: ['inline'], explicit: false };
      throw contextError('context_source_unavailable', 'auto', 'A patient was given but no patient record source is configured and the messages hold no inline chart.');
    }
    return { primary: ['inline'], explicit: false };
  }

  async buildLedger(req: LedgerRequest): Promise<EvidenceLedger> {
    const selection = this.selectPrimary(req);
    const names = [...new Set([...selection.primary, ...req.supplementalSources])];
    const resolved = names.map((name) => {
      const s = this.byName.get(name);
      if (!s) throw contextError('context_source_unavailable', name, `Context source '${name}' is not configured on this hub.`);
      return s;
    });
    const parts: Array<{ name: string; ledger: EvidenceLedger }> = [];
    let primaryLedger: EvidenceLedger | undefined;
    for (const source of resolved) {
      const isPrimary = selection.primary.includes(source.name);
      const cr: ContextRequest = {
        messages: req.messages,
        patient: req.patient,
        sources: selection.primary,
        supplementalSources: req.supplementalSources,
        question: req.question,
        explicit: isPrimary && selection.explicit,
        primaryLedger: isPrimary ? undefined : primaryLedger,
        signal: req.signal,
        report: req.report,
      };
      // Sequential on purpose: a supplemental source may read the primary ledger.
      const ledger = await source.fetch(cr);
      parts.push({ name: source.name, ledger });
      if (isPrimary) primaryLedger = mergeLedgers(parts.filter((p) => selection.primary.includes(p.name)));
    }
    return mergeLedgers(parts);
  }
}

/** Concatenates ledgers in source order; duplicate stable ids are a registry failure. */
export function mergeLedgers(parts: ReadonlyArray<{ name: string; ledger: EvidenceLedger }>): EvidenceLedger {
  const contributing = parts.filter((p) => p.ledger.records.length > 0 || p.ledger.originalText.trim() !== '');
  if (contributing.length === 0) return emptyLedger();
  if (contributing.length === 1) return { ...contributing[0].ledger, sources: [contributing[0].name] };
  const seen = new Set<string>();
  const records = contributing.flatMap((p) => p.ledger.records);
  for (const r of records) {
    if (seen.has(r.stableId)) throw contextError('context_source_failed', 'registry', `Two context sources returned the same record id '${r.stableId}'.`);
    seen.add(r.stableId);
  }
  // originalText is kept only when exactly one source contributed (§5.2).
  return { records, originalText: '', preamble: contributing.map((p) => p.ledger.preamble).join(''), sources: contributing.map((p) => p.name) };
}
