/**
 * Inline chart extraction (§5.3 with decision 20): which user message is the chart, which is the
 * question, and the line grammar `[N] (YYYY-MM-DD) <body>` with date carry-forward.
 */
import { HubError } from '../errors';
import { inSlices, LoopSlice } from '../event-loop';
import { datePrefixEnd, isRecordLine, readRecordLine, type RecordLineParts } from './record-line';
import type { EvidenceLedger, EvidenceRecord } from './types';

export const CHART_MARKER = 'Patient records (most recent first):';

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
  const numbered = lines.filter((l) => isRecordLine(l.trim())).length;
  return numbered > 0 && numbered * 2 >= lines.length;
}

/** Text that follows the records in the chart serializers' layout (clients.md §3); never part of a record. */
const TRAILER_LABELS = ["Clinician's query:", 'Records ranked by similarity to the query:'];

/**
 * Where the first line whose trimmed text starts with a trailer label begins (a prefix test of every
 * trimmed line, without splitting a chart of thousands of lines into them): -1 when there is none. Each
 * label occurrence is a candidate; a line is looked at once, for its first candidate, since any later one
 * on the same line has that non-blank text before it too. Linear in the text.
 */
function trailerLineStart(text: string): number {
  let lineStart = 0;
  /** Start of the last line already ruled out. */
  let ruledOut = -1;
  let nextBreak = text.indexOf('\n');
  const next = TRAILER_LABELS.map((l) => text.indexOf(l));
  for (;;) {
    let p = -1;
    let which = -1;
    next.forEach((at, i) => {
      if (at >= 0 && (p < 0 || at < p)) {
        p = at;
        which = i;
      }
    });
    if (p < 0) return -1;
    next[which] = text.indexOf(TRAILER_LABELS[which], p + 1);
    while (nextBreak >= 0 && nextBreak < p) {
      lineStart = nextBreak + 1;
      nextBreak = text.indexOf('\n', lineStart);
    }
    if (lineStart === ruledOut) continue;
    if (text.slice(lineStart, p).trim() === '') return lineStart;
    ruledOut = lineStart;
  }
}

/** `lines.join('\n')` of `text.split(/\r?\n/)`: every CRLF as LF. */
function joinedLines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n/g, '\n') : text;
}

/**
 * The chart and what follows it: the first line that starts (trimmed) with a trailer label and every
 * line after it are the trailer; the lines before it, rejoined with LF, are the chart.
 */
export function splitAtTrailer(text: string): { chart: string; trailer: string } {
  const at = trailerLineStart(text);
  if (at < 0) return { chart: text, trailer: '' };
  // trimEnd, not `/\s+$/` (retried from every blank of a long run: quadratic).
  return { chart: joinedLines(text.slice(0, at)).trimEnd(), trailer: joinedLines(text.slice(at)).trim() };
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

function tooManyRecords(maxRecords: number): HubError {
  return new HubError('invalid_request_error', `The inline chart has more than ${maxRecords} records (HUB_MAX_CHART_RECORDS).`, { param: 'messages' });
}

/**
 * The line grammar, one line at a time: `parseChart` feeds it every line at once, `parseChartInSlices`
 * a run of lines per slice, so both build the very same ledger.
 */
class ChartParser {
  readonly records: EvidenceRecord[] = [];
  private readonly preamble: string[] = [];
  private lastDate: string | null = null;
  /** The current line's parts (one object per chart, not per line). */
  private readonly parts: RecordLineParts = { n: 0, bodyStart: 0 };

  constructor(private readonly maxRecords: number) {}

  feed(lines: readonly string[], from: number, to: number): void {
    const parts = this.parts;
    for (let i = from; i < to; i++) {
      const line = lines[i];
      const t = line.trim();
      if (!readRecordLine(t, parts)) {
        if (t === '') continue;
        if (this.records.length === 0) this.preamble.push(line);
        // A continuation line belongs to the record above it (decision 20), never dropped.
        else this.records[this.records.length - 1].text += `\n${t}`;
        continue;
      }
      if (this.records.length >= this.maxRecords) throw tooManyRecords(this.maxRecords);
      let bodyStart = parts.bodyStart;
      const afterDate = datePrefixEnd(t, bodyStart);
      if (afterDate >= 0) {
        this.lastDate = t.slice(bodyStart + 1, bodyStart + 11);
        bodyStart = afterDate;
      }
      this.records.push(inlineRecord(parts.n, bodyStart === 0 ? t : t.slice(bodyStart), this.lastDate));
    }
  }

  ledger(chartText: string): EvidenceLedger {
    if (this.records.length === 0 && chartText.trim() !== '') {
      // A chart with no numbered lines is one record (§5.3).
      return { records: [inlineRecord(1, chartText.trim(), null)], originalText: chartText, preamble: '', sources: ['inline'] };
    }
    return { records: this.records, originalText: chartText, preamble: this.preamble.length ? `${this.preamble.join('\n')}\n` : '', sources: ['inline'] };
  }
}

function chartLines(chartText: string): string[] {
  return chartText.split(/\r?\n/);
}

/** Parses chart text into records; lines before the first record form the preamble. */
export function parseChart(chartText: string, opts: { maxRecords: number }): EvidenceLedger {
  const lines = chartLines(chartText);
  const parser = new ChartParser(opts.maxRecords);
  parser.feed(lines, 0, lines.length);
  return parser.ledger(chartText);
}

/** Lines per run of the sliced parse (a run costs well under a slice). */
const LINES_PER_RUN = 500;

/**
 * `parseChart` for large charts: the same ledger (or the same refusal), built a run of lines at a time
 * with the loop given back between slices. A chart with more lines than the record limit has its record
 * lines counted first, so an oversized chart is refused without building the records it is refused for.
 */
export async function parseChartInSlices(chartText: string, opts: { maxRecords: number; linesPerRun?: number }, slice: LoopSlice = new LoopSlice()): Promise<EvidenceLedger> {
  const perRun = opts.linesPerRun ?? LINES_PER_RUN;
  const lines = chartLines(chartText);
  if (lines.length > opts.maxRecords) {
    let recordLines = 0;
    await inSlices(lines.length, perRun, (from, to) => {
      for (let i = from; i < to; i++) if (isRecordLine(lines[i].trim())) recordLines++;
    }, slice);
    if (recordLines > opts.maxRecords) throw tooManyRecords(opts.maxRecords);
    await slice.maybeYield();
  }
  const parser = new ChartParser(opts.maxRecords);
  await inSlices(lines.length, perRun, (from, to) => parser.feed(lines, from, to), slice);
  return parser.ledger(chartText);
}

/** Inline records carry no metadata and no raw resource: one frozen empty object serves them all. */
const NOTHING: Record<string, unknown> = Object.freeze({});

/** `inline:N` ids, made once per N (every leg and turn numbers its records from 1). */
const INLINE_IDS: string[] = [];
const INLINE_IDS_KEPT = 4096;

function inlineId(n: number): string {
  if (n >= INLINE_IDS_KEPT || !Number.isInteger(n)) return `inline:${n}`;
  return (INLINE_IDS[n] ??= `inline:${n}`);
}

function inlineRecord(n: number, body: string, date: string | null): EvidenceRecord {
  return {
    stableId: inlineId(n),
    source: 'inline',
    sourcePriority: 10,
    resourceType: 'ChartRecord',
    resourceUuid: null,
    date,
    text: body,
    mandatory: /^allergy:/i.test(body.trim()),
    metadata: NOTHING,
    raw: NOTHING,
  };
}

