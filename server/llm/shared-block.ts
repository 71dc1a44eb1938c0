/**
 * The context block every stage prompt of a turn opens with (decision 8: temporal facts and the chart)
 * is tens of kilobytes, and a checked turn sends it about twelve times (a count and a chat per stage).
 * A stage message built on a block remembers it, so the router client encodes the block to JSON bytes
 * and the token counter hashes it once per turn instead of once per call. The message's `content`
 * stays the whole prompt text (block + tail) for every other reader; the message is frozen so that
 * content and the remembered parts can never disagree.
 */
import { createHash } from 'node:crypto';
import type { Slicer } from '../event-loop';
import type { ChatMessage } from './types';

export class SharedBlock {
  private jsonBytes: Buffer | undefined;
  private sha256: string | undefined;
  private utf8Bytes: number | undefined;

  constructor(readonly text: string) {}

  /** UTF-8 bytes of `text` escaped as the inside of a JSON string (no quotes); computed once. */
  json(): Buffer {
    this.jsonBytes ??= Buffer.from(JSON.stringify(this.text).slice(1, -1), 'utf8');
    return this.jsonBytes;
  }

  /** UTF-8 byte length of `text` (the fit bound's measure, decision 24); computed once. */
  utf8Length(): number {
    this.utf8Bytes ??= Buffer.byteLength(this.text, 'utf8');
    return this.utf8Bytes;
  }

  /** Hex SHA-256 of `text`; computed once. */
  digest(): string {
    this.sha256 ??= createHash('sha256').update(this.text).digest('hex');
    return this.sha256;
  }

  /**
   * Computes `json()` and `digest()` ahead of their first use, a run of text at a time with the loop
   * given back between runs: on a chart block of a megabyte each is a pass of several milliseconds,
   * and both used to run inside whichever synchronous piece first needed them. The same bytes and hex.
   */
  async prepare(slice: Slicer, runChars = PREPARE_RUN_CHARS): Promise<void> {
    if (this.jsonBytes !== undefined && this.sha256 !== undefined) return;
    const json: Buffer[] = [];
    const hash = createHash('sha256');
    for (let from = 0; from < this.text.length; ) {
      const to = pairSafeEnd(this.text, from + runChars);
      const run = this.text.slice(from, to);
      json.push(Buffer.from(JSON.stringify(run).slice(1, -1), 'utf8'));
      hash.update(run);
      from = to;
      if (slice.due()) await slice.yield();
    }
    this.jsonBytes ??= Buffer.concat(json);
    this.sha256 ??= hash.digest('hex');
  }
}

/** Characters per run of `SharedBlock.prepare`. */
const PREPARE_RUN_CHARS = 64 * 1024;

/**
 * `at`, or one further when `at` would split a surrogate pair: JSON escaping and UTF-8 encoding treat a
 * pair as one character and a lone half as another, so runs cut between the halves would differ.
 */
function pairSafeEnd(text: string, at: number): number {
  if (at >= text.length) return text.length;
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff ? at + 1 : at;
}

interface BlockParts {
  block: SharedBlock;
  tail: string;
}

/** Tails at least this long (a question of a megabyte) have their encoding and digest remembered too. */
export const LONG_TAIL_CHARS = 64 * 1024;
const LONG_TAILS_KEPT = 4;
/** Recently seen long tails, by text: each stage's count and dispatch encode and hash the same tail. */
const longTails = new Map<string, SharedBlock>();

/**
 * The remembered encoding of a long tail (a SharedBlock over its text), null for a short one, which is
 * simply stringified where it is used.
 */
export function longTail(tail: string): SharedBlock | null {
  if (tail.length < LONG_TAIL_CHARS) return null;
  let block = longTails.get(tail);
  if (block) {
    longTails.delete(tail);
  } else {
    block = new SharedBlock(tail);
    if (longTails.size >= LONG_TAILS_KEPT) longTails.delete(longTails.keys().next().value as string);
  }
  longTails.set(tail, block);
  return block;
}

/**
 * Computes, in slices, the encodings and digests a body's block messages will need (large blocks and
 * long tails), so that neither counting nor dispatch computes them in one piece.
 */
export async function prepareBody(body: { messages?: unknown }, slice: Slicer): Promise<void> {
  if (!Array.isArray(body.messages)) return;
  for (const m of body.messages) {
    const parts = blockParts(m);
    if (!parts) continue;
    if (parts.block.text.length >= LONG_TAIL_CHARS) await parts.block.prepare(slice);
    await longTail(parts.tail)?.prepare(slice);
  }
}

const partsOf = new WeakMap<object, BlockParts>();

/** A frozen `{role, content: block.text + tail}` message that remembers its two parts. */
export function blockMessage(role: string, block: SharedBlock, tail: string): ChatMessage {
  const message = Object.freeze({ role, content: block.text + tail });
  partsOf.set(message, { block, tail });
  return message;
}

/** The block and tail of a message made by blockMessage; undefined for any other message. */
export function blockParts(message: unknown): BlockParts | undefined {
  return typeof message === 'object' && message !== null ? partsOf.get(message) : undefined;
}

/**
 * `JSON.stringify(body)` as UTF-8 bytes, with each block message's block spliced in from its cached
 * encoding. Escaping is per character, so the bytes parse to exactly the object; only the key order
 * differs (messages first). Bodies without block messages are stringified as they are.
 */
export function encodeJsonBody(body: Record<string, unknown>): string | Buffer {
  const messages = body.messages;
  if (!Array.isArray(messages) || !messages.some((m) => blockParts(m) !== undefined)) return JSON.stringify(body);
  const chunks: Buffer[] = [];
  let text = '{"messages":[';
  messages.forEach((m: unknown, i) => {
    if (i > 0) text += ',';
    const parts = blockParts(m);
    if (!parts) {
      text += JSON.stringify(m);
      return;
    }
    text += `{"role":${JSON.stringify((m as ChatMessage).role)},"content":"`;
    chunks.push(Buffer.from(text, 'utf8'), parts.block.json());
    const long = longTail(parts.tail);
    if (long) {
      chunks.push(long.json());
      text = '"}';
    } else {
      text = `${JSON.stringify(parts.tail).slice(1)}}`;
    }
  });
  const rest = JSON.stringify({ ...body, messages: undefined });
  text += rest === '{}' ? ']}' : `],${rest.slice(1)}`;
  chunks.push(Buffer.from(text, 'utf8'));
  return Buffer.concat(chunks);
}
