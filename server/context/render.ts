/**
 * How evidence is written into prompts (§5.1, §5.4): one record line, and a whole ledger. Every view of a
 * ledger — the full chart, a selected view, a merge of several sources — writes a record the same way.
 */
import type { EvidenceLedger, EvidenceRecord } from './types';

export function isKnowledgeReference(record: EvidenceRecord): boolean {
  return record.resourceType === 'KnowledgeReference';
}

/**
 * One record line. The date is always written: run-length date compression would misdate a record whose
 * run head was left out. The shown date is `clinicalDate` when there is one (clinical), else the sort date,
 * which carries the ` [administrative]` / ` [unknown]` marker when `dateKind` says it is not clinical (§5.4
 * chart serializer); an undated record gets no marker. Inline records have neither field: `(date) text`.
 */
export function renderRecordLine(record: EvidenceRecord, index: number): string {
  if (isKnowledgeReference(record)) return `[${index}] KnowledgeReference (source: ${record.source}): ${record.text}`;
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
