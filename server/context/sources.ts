/**
 * Primary/supplemental source resolution (§5.2) and ledger building. Only the inline source exists
 * so far; the QueryStore and knowledge-base sources plug in through the same resolution.
 */
import { contextError } from '../errors';
import { extractChart, parseChart, type ChatMessageLike, type ChartExtraction } from './inline-chart';
import { emptyLedger, type EvidenceLedger } from './types';

export interface SourceRequest {
  messages: readonly ChatMessageLike[];
  patient: string | null;
  context: { sources?: unknown; source?: unknown } | null;
  supplementalSources: readonly string[];
  maxChartRecords: number;
}

export interface BuiltContext {
  ledger: EvidenceLedger;
  chart: ChartExtraction;
}

/** Source names the hub knows, by priority; only `inline` is built so far. */
const AVAILABLE_SOURCES = new Set(['inline']);

function explicitSources(context: SourceRequest['context']): string[] | null {
  if (!context) return null;
  const { sources, source } = context;
  if (sources !== undefined && sources !== null) {
    if (typeof sources === 'string') return [sources];
    if (Array.isArray(sources) && sources.every((s) => typeof s === 'string')) return sources as string[];
    throw contextError('context_source_unavailable', 503, 'request', 'context.sources must be a list of source names or a single name.');
  }
  if (typeof source === 'string' && source.trim() !== '') return [source];
  return null;
}

export function buildContext(req: SourceRequest): BuiltContext {
  const chart = extractChart(req.messages);
  const hasChart = chart.chartMessageIndices.length > 0;
  const explicit = explicitSources(req.context);
  const wanted = explicit !== null || req.patient !== null;
  let primary: string[];
  if (explicit !== null) primary = explicit;
  else if (req.patient !== null) {
    if (!hasChart) throw contextError('context_source_unavailable', 503, 'auto', 'A patient was given but no patient record source is configured and the messages hold no inline chart.');
    primary = ['inline'];
  } else primary = ['inline'];
  const names = [...new Set([...primary, ...req.supplementalSources])];
  for (const name of names) {
    if (!AVAILABLE_SOURCES.has(name)) throw contextError('context_source_unavailable', 503, name, `Context source '${name}' is not configured on this hub.`);
  }
  if (!hasChart) {
    if (explicit !== null && explicit.includes('inline')) throw contextError('context_source_unavailable', 503, 'inline', 'The inline source was requested but the messages hold no chart.');
    // Nothing asked for and nothing found: proceed with an empty ledger (§2.1 nuance).
    if (!wanted || explicit === null) return { ledger: emptyLedger(), chart };
  }
  return { ledger: parseChart(chart.chartText, { maxRecords: req.maxChartRecords }), chart };
}
