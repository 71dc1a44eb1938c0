/**
 * Inline chart extraction (§5.3 with decision 20): which user message is the chart, which is the
 * question, and the line grammar `[N] (YYYY-MM-DD) <body>` with date carry-forward.
 */
import { HubError } from '../errors';
import type { EvidenceLedger, EvidenceRecord } from './types';

export const CHART_MARKER = 'Patient records (most recent first):';

// The body starts at a non-space: with `\s*(.*)$` both quantifiers could take the blanks, and a
// line break inside the body (U+2028, a lone CR) made the failing match retry every split (quadratic).
const RECORD_LINE = /^\[(\d+)\]\s*((?:\S.*)?)$/;
const DATE_PREFIX = /^\((\d{4}-\d{2}-\d{2})\)\s*/;
/** Text that follows the records in the chart serializers' layout (clients.md §3); never part of a record. */
const CHART_TRAILER = /^(Clinician's query:|Records ranked by similarity to the query:)/;

export interface ChatMessageLike {
  role?: unknown;
  content?: unknown;
}

export interface ChartExtraction {
  /** Indices (into `messages`) of the chart message, if any. */
  chartMessageIndices: number[];
  /** The chart text (after the marker when there is one). Empty when no chart was found. */
  chartText: string;
  /** The question: the last user message (minus the chart when that message carries it). */
  question: string;
  /** Index of the question message, or -1. */
  questionIndex: number;
}

/** Message content as text: strings as-is, anything else JSON-stringified (§2.1). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return '';
  if (Array.isArray(content)) {
    // OpenAI content parts: join the text parts.
    const texts = content.filter((p) => p && typeof p === 'object' && (p as { type?: unknown }).type === 'text');
    if (texts.length === content.length) return texts.map((p) => String((p as { text?: unknown }).text ?? '')).join('\n');
  }
  return JSON.stringify(content);
}

function isUser(m: ChatMessageLike): boolean {
  return m !== null && typeof m === 'object' && m.role === 'user';
}

/** A message "made mostly of numbered record lines": at least one, and at least half of the non-blank lines. */
function isRecordMessage(text: string): boolean {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length === 0) return false;
  const numbered = lines.filter((l) => RECORD_LINE.test(l.trim())).length;
  return numbered > 0 && numbered * 2 >= lines.length;
}

function splitAtTrailer(text: string): { chart: string; trailer: string } {
  const lines = text.split(/\r?\n/);
  const at = lines.findIndex((l) => CHART_TRAILER.test(l.trim()));
  if (at < 0) return { chart: text, trailer: '' };
  // trimEnd, not `/\s+$/` (retried from every blank of a long run: quadratic).
  return { chart: lines.slice(0, at).join('\n').trimEnd(), trailer: lines.slice(at).join('\n').trim() };
}

const QUERY_LABEL = "Clinician's query:";

/** The text after the first `Clinician's query:`, trimmed: indexOf, as `:\s*([\s\S]*)$` had overlapping quantifiers. */
function questionFromTrailer(trailer: string): string {
  const at = trailer.indexOf(QUERY_LABEL);
  return at < 0 ? '' : trailer.slice(at + QUERY_LABEL.length).trim();
}

/** Finds the chart and the question in the conversation (decision 20). */
export function extractChart(messages: readonly ChatMessageLike[]): ChartExtraction {
  let questionIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isUser(messages[i])) {
      questionIndex = i;
      break;
    }
  }
  const questionText = questionIndex >= 0 ? contentText(messages[questionIndex].content) : '';
  for (let i = 0; i < messages.length; i++) {
    if (!isUser(messages[i])) continue;
    const text = contentText(messages[i].content);
    const markerAt = text.indexOf(CHART_MARKER);
    if (markerAt >= 0) {
      const after = text.slice(markerAt + CHART_MARKER.length).replace(/^[\r\n]+/, '');
      const { chart, trailer } = splitAtTrailer(after);
      let question = questionText;
      if (i === questionIndex) question = questionFromTrailer(trailer) || text.slice(0, markerAt).trim() || questionText;
      return { chartMessageIndices: [i], chartText: chart, question, questionIndex };
    }
    if (i !== questionIndex && isRecordMessage(text)) {
      return { chartMessageIndices: [i], chartText: splitAtTrailer(text).chart, question: questionText, questionIndex };
    }
  }
  return { chartMessageIndices: [], chartText: '', question: questionText, questionIndex };
}

/** Parses chart text into records; lines before the first record form the preamble. */
export function parseChart(chartText: string, opts: { maxRecords: number }): EvidenceLedger {
  const lines = chartText.split(/\r?\n/);
  const records: EvidenceRecord[] = [];
  const preamble: string[] = [];
  let lastDate: string | null = null;
  for (const line of lines) {
    const m = RECORD_LINE.exec(line.trim());
    if (!m) {
      if (records.length === 0) {
        if (line.trim() !== '') preamble.push(line);
      } else if (line.trim() !== '') {
        // A continuation line belongs to the record above it (decision 20), never dropped.
        records[records.length - 1].text += `\n${line.trim()}`;
      }
      continue;
    }
    if (records.length >= opts.maxRecords) {
      throw new HubError('invalid_request_error', 400, `The inline chart has more than ${opts.maxRecords} records (HUB_MAX_CHART_RECORDS).`, { param: 'messages' });
    }
    let body = m[2];
    const d = DATE_PREFIX.exec(body);
    if (d) {
      lastDate = d[1];
      body = body.slice(d[0].length);
    }
    records.push(inlineRecord(Number(m[1]), body, lastDate));
  }
  if (records.length === 0 && chartText.trim() !== '') {
    // A chart with no numbered lines is one record (§5.3).
    return { records: [inlineRecord(1, chartText.trim(), null)], originalText: chartText, preamble: '', sources: ['inline'] };
  }
  return { records, originalText: chartText, preamble: preamble.length ? `${preamble.join('\n')}\n` : '', sources: ['inline'] };
}

function inlineRecord(n: number, body: string, date: string | null): EvidenceRecord {
  return {
    stableId: `inline:${n}`,
    source: 'inline',
    sourcePriority: 10,
    resourceType: 'ChartRecord',
    resourceUuid: null,
    date,
    text: body,
    mandatory: /^allergy:/i.test(body.trim()),
    metadata: {},
    raw: {},
  };
}

/** Renders a ledger for a prompt: the original text when present, else numbered lines (§5.1). */
export function renderLedger(ledger: EvidenceLedger): string {
  if (ledger.originalText.trim() !== '') return ledger.originalText;
  return ledger.preamble + ledger.records.map((r, i) => `[${i + 1}] ${r.date ? `(${r.date}) ` : ''}${r.text}\n`).join('');
}
