/**
 * The inline chart's record line, `[N] (YYYY-MM-DD) <body>` (§5.3), read by hand. Exactly what the
 * regexes `^\[(\d+)\]\s*((?:\S.*)?)$` and `^\((\d{4}-\d{2}-\d{2})\)\s*` accept (a table and a randomized
 * test hold the two to the same answers), without the match arrays and captured copies the regexes
 * allocate for every line: a leg parses its whole chart, and its allocation is its garbage-collection time.
 */
import { skipJsSpace } from '../text-scan';

const LINE_TERMINATOR_FROM = /[\n\r\u2028\u2029]/g;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Where a line's record parts start; numbers are indices into the trimmed line. */
export interface RecordLineParts {
  /** The record number N. */
  n: number;
  /** Start of the body (its first non-space character, or the line's end for an empty body). */
  bodyStart: number;
}

/**
 * The parts of a trimmed record line, or null when `t` is not one. `out` is reused by the caller (one
 * object per chart, not per line).
 */
export function readRecordLine(t: string, out: RecordLineParts): RecordLineParts | null {
  if (t.charCodeAt(0) !== 0x5b /* [ */) return null;
  let i = 1;
  while (i < t.length && isDigit(t.charCodeAt(i))) i++;
  if (i === 1 || t.charCodeAt(i) !== 0x5d /* ] */) return null;
  const digitsEnd = i;
  const bodyStart = skipJsSpace(t, i + 1);
  // The body is a non-space and then anything but a line terminator, to the end (\n cannot occur: the
  // chart is split at it). A global regex searches from lastIndex natively and allocates nothing on test.
  LINE_TERMINATOR_FROM.lastIndex = bodyStart;
  if (LINE_TERMINATOR_FROM.test(t)) return null;
  out.n = digitsEnd - 1 <= 15 ? smallNumber(t, 1, digitsEnd) : Number(t.slice(1, digitsEnd));
  out.bodyStart = bodyStart;
  return out;
}

/** The decimal number of t[from, to) (at most 15 digits: exact in a double, as Number() of the text is). */
function smallNumber(t: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + (t.charCodeAt(i) - 0x30);
  return n;
}

const SCRATCH: RecordLineParts = { n: 0, bodyStart: 0 };

/** Is `t` (trimmed) a record line? */
export function isRecordLine(t: string): boolean {
  return readRecordLine(t, SCRATCH) !== null;
}

/**
 * Where the text after a `(YYYY-MM-DD)` prefix (and the white space after it) starts at `from`, or -1
 * when there is no such prefix there. The date is `s.slice(from + 1, from + 11)`.
 */
export function datePrefixEnd(s: string, from: number): number {
  if (s.length - from < 12 || s.charCodeAt(from) !== 0x28 /* ( */ || s.charCodeAt(from + 11) !== 0x29 /* ) */) return -1;
  for (let k = 1; k <= 10; k++) {
    const c = s.charCodeAt(from + k);
    if (k === 5 || k === 8 ? c !== 0x2d /* - */ : !isDigit(c)) return -1;
  }
  return skipJsSpace(s, from + 12);
}
