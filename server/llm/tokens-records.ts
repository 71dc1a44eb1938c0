/**
 * Batched record costs (hub-contract §5.7): every record text goes to the router in ONE `/tokenize` call,
 * joined by a boundary marker; the returned pieces are mapped back to records by UTF-8 byte ranges.
 * Pure functions: no I/O, so every charging rule is pinned by table tests.
 */

export const RECORD_BOUNDARY_MARKER = 'MAH-CONTEXT-RECORD-BOUNDARY';

/** A byte range `[start, end)` of one record inside the joined content. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface JoinedRecords {
  content: string;
  /** One range per input text, in order. */
  ranges: ByteRange[];
  boundary: string;
}

/**
 * The separator: `\n\x1eMAH-CONTEXT-RECORD-BOUNDARY\x1e\n`, or with `-1`, `-2`, … appended to the marker
 * until no record contains it (a record quoting the marker must not look like a separator to the tokenizer).
 */
export function recordBoundary(texts: readonly string[]): string {
  for (let n = 0; ; n++) {
    const boundary = `\n\x1e${RECORD_BOUNDARY_MARKER}${n === 0 ? '' : `-${n}`}\x1e\n`;
    if (!texts.some((t) => t.includes(boundary))) return boundary;
  }
}

export function joinRecords(texts: readonly string[]): JoinedRecords {
  const boundary = recordBoundary(texts);
  const boundaryBytes = Buffer.byteLength(boundary, 'utf8');
  const ranges: ByteRange[] = [];
  let offset = 0;
  texts.forEach((text, i) => {
    if (i > 0) offset += boundaryBytes;
    const start = offset;
    offset += Buffer.byteLength(text, 'utf8');
    ranges.push({ start, end: offset });
  });
  return { content: texts.join(boundary), ranges, boundary };
}

/** True when the pieces concatenate to exactly `content` (anything else means the byte ranges would lie). */
export function piecesMatch(pieces: readonly Uint8Array[], content: Uint8Array): boolean {
  let offset = 0;
  for (const piece of pieces) {
    if (offset + piece.length > content.length) return false;
    for (let i = 0; i < piece.length; i++) if (piece[i] !== content[offset + i]) return false;
    offset += piece.length;
  }
  return offset === content.length;
}

/**
 * Raw token counts per record: a token is charged to every record whose (non-empty) byte range it overlaps,
 * so a token spanning a boundary counts for both neighbours and a boundary-only token for none.
 * Tokens and ranges are both ascending, so one forward pass suffices (O(tokens + records)).
 */
export function chargeTokens(pieces: readonly Uint8Array[], ranges: readonly ByteRange[]): number[] {
  const costs: number[] = ranges.map(() => 0);
  let first = 0; // first range that can still overlap the current or a later token
  let tokenStart = 0;
  for (const piece of pieces) {
    const tokenEnd = tokenStart + piece.length;
    while (first < ranges.length && ranges[first].end <= tokenStart) first++;
    for (let r = first; r < ranges.length && ranges[r].start < tokenEnd; r++) {
      const range = ranges[r];
      if (range.end > range.start && range.end > tokenStart) costs[r]++;
    }
    tokenStart = tokenEnd;
  }
  return costs;
}

/** A record costs at least one token: the selector must never treat evidence as free. */
export function recordCosts(rawCounts: readonly number[]): number[] {
  return rawCounts.map((n) => Math.max(1, n));
}
