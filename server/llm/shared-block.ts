/**
 * The context block every stage prompt of a turn opens with (decision 8: temporal facts and the chart)
 * is tens of kilobytes, and a checked turn sends it about twelve times (a count and a chat per stage).
 * A stage message built on a block remembers it, so the router client encodes the block to JSON bytes
 * and the token counter hashes it once per turn instead of once per call. The message's `content`
 * stays the whole prompt text (block + tail) for every other reader; the message is frozen so that
 * content and the remembered parts can never disagree.
 */
import { createHash } from 'node:crypto';
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
}

interface BlockParts {
  block: SharedBlock;
  tail: string;
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
    text = `${JSON.stringify(parts.tail).slice(1)}}`;
  });
  const rest = JSON.stringify({ ...body, messages: undefined });
  text += rest === '{}' ? ']}' : `],${rest.slice(1)}`;
  chunks.push(Buffer.from(text, 'utf8'));
  return Buffer.concat(chunks);
}
