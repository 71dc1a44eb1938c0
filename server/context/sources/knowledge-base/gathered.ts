/**
 * The knowledge part of the In-Depth stage's "=== GATHERED KB / EVIDENCE ===" section (hub-contract §7.6):
 * which ledger records are knowledge-base guidance (their `[N]`, who says it, and whether it is safety
 * guidance) and the source's non-citable notes (conflicts, disagreeing sources). Small and deterministic:
 * derived from the complete ledger alone, so every stage of one turn reads the same thing.
 */
import type { EvidenceLedger } from '../../types';
import { KNOWLEDGE_SOURCE_NAME, NOTES_HEADER } from './names';

const MAX_LINES = 12;

function who(meta: Record<string, unknown>): string {
  const parts = [meta.authority, meta.version].filter((v) => typeof v === 'string' && v !== '').join(' ');
  const where = [meta.title, meta.section].filter((v) => typeof v === 'string' && v !== '').join(' › ');
  return [parts, where].filter(Boolean).join(', ') || 'knowledge base';
}

/** '' when the ledger holds no knowledge-base record. */
export function knowledgeGathered(ledger: EvidenceLedger | null): string {
  if (!ledger) return '';
  const lines: string[] = [];
  ledger.records.forEach((r, i) => {
    if (r.source !== KNOWLEDGE_SOURCE_NAME) return;
    const safety = r.metadata.safety_critical === true || r.metadata.safety_item === true ? ' (safety guidance)' : '';
    lines.push(`[${i + 1}] ${who(r.metadata)}${safety}`);
  });
  if (lines.length === 0) return '';
  const shown = lines.slice(0, MAX_LINES);
  if (lines.length > MAX_LINES) shown.push(`(${lines.length - MAX_LINES} more knowledge-base record(s) in the evidence)`);
  const at = ledger.preamble.indexOf(NOTES_HEADER);
  const notes = at >= 0 ? ledger.preamble.slice(at + NOTES_HEADER.length).split('\n').filter((l) => l.startsWith('- ')).slice(0, MAX_LINES) : [];
  return [
    'Knowledge-base guidance records in the evidence (cite them by [N] for guidance; patient facts cite patient records):',
    ...shown,
    ...(notes.length ? ['Knowledge-base notes (not citable):', ...notes] : []),
  ].join('\n');
}
