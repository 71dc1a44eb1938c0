/**
 * How evidence is written into prompts (§5.1, §5.4): one record line, and a whole ledger. Every view of a
 * ledger — the full chart, a selected view, a merge of several sources — writes a record the same way.
 */
import type { EvidenceLedger, EvidenceRecord } from './types';

export function isKnowledgeReference(record: EvidenceRecord): boolean {
  return record.resourceType === 'KnowledgeReference';
}

/**
 * Opens the line that follows a knowledge record's quote with its provenance. A line of its own with a label no
 * quote starts with: the quote is the whole first line (its bytes as committed), never mistaken for the source.
 */
export const PROVENANCE_LINE = '\n    (provenance, not part of the quote: ';

function knowledgeLine(record: EvidenceRecord, index: number): string {
  const attribution = record.metadata.attribution;
  const provenance = typeof attribution === 'string' && attribution !== '' ? `${PROVENANCE_LINE}${attribution})` : '';
  return `[${index}] KnowledgeReference (source: ${record.source}): ${record.text}${provenance}`;
}

/**
 * One record line. The date is always written: run-length date compression would misdate a record whose
 * run head was left out. The shown date is `clinicalDate` when there is one (clinical), else the sort date,
 * which carries the ` [administrative]` / ` [unknown]` marker when `dateKind` says it is not clinical (§5.4
 * chart serializer); an undated record gets no marker. Inline records have neither field: `(date) text`.
 */
export function renderRecordLine(record: EvidenceRecord, index: number): string {
  if (isKnowledgeReference(record)) return knowledgeLine(record, index);
  const clinical = record.clinicalDate || null;
  const shown = clinical ?? record.date;
  if (!shown) return `[${index}] ${record.text}`;
  const kind = clinical === null ? record.dateKind : null;
  const marker = kind === 'administrative' || kind === 'unknown' ? ` [${kind}]` : '';
  return `[${index}] (${shown}) ${record.text}${marker}`;
}

/** A ledger for a prompt: the original text when present (one source), else its numbered record lines. */
export function renderLedger(ledger: EvidenceLedger): string {
  if (ledger.originalText.trim() !== '') return ledger.originalText;
  return ledger.preamble + ledger.records.map((r, i) => `${renderRecordLine(r, i + 1)}\n`).join('');
}
