/**
 * A staged answer stream as an async iterable (openai-node's model): `for await` yields typed events up
 * to the terminal `done` or `error`; leaving the loop early (`break`, `return`, a throw) closes the HTTP
 * connection, which the hub takes as a cancellation and frees its model slot (decision 5). An aborted
 * `signal` cuts the connection too, and the pending iteration rejects with the signal's reason.
 */
import type { ErrorEventData, ProductEnvelope } from './envelope.js';
import { ProtocolError, StreamError } from './errors.js';
import { SseDecoder } from './sse.js';
import { isTerminal, stagedEventOf, type StagedEvent } from './staged.js';

export class StagedStream implements AsyncIterable<StagedEvent> {
  private readonly sse = new SseDecoder();
  private iterated = false;
  private lastEnvelope: ProductEnvelope | null = null;
  private errorData: ErrorEventData | null = null;
  private ended = false;
  private sawDone = false;

  constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {}

  /** `: hb` heartbeats read so far. */
  get heartbeats(): number {
    return this.sse.heartbeats;
  }

  /** The data of the terminal `event: error`, once read. */
  get errorEvent(): ErrorEventData | null {
    return this.errorData;
  }

  /** Closes the connection now (the hub cancels the turn). */
  abort(): void {
    this.controller.abort();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StagedEvent> {
    if (this.iterated) throw new Error('A StagedStream can be iterated only once');
    this.iterated = true;
    const body = this.response.body;
    if (!body) throw new ProtocolError('The staged stream has no body');
    const reader = body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        const frames = done ? [...this.sse.push(decoder.decode()), ...this.sse.end()] : this.sse.push(decoder.decode(value, { stream: true }));
        for (const frame of frames) {
          // An abort stops delivery at once, even of frames that arrived in the same chunk.
          if (this.controller.signal.aborted) throw this.controller.signal.reason;
          const event = stagedEventOf(frame);
          if (event === null) continue;
          this.record(event);
          yield event;
          // Reading stops at the first terminal event: whatever follows is not part of the turn.
          if (isTerminal(event)) return;
        }
        if (done) throw new ProtocolError('The staged stream ended without a done or error event');
      }
    } finally {
      this.ended = true;
      // After a terminal event this only drops an exhausted connection; after a break it cancels the turn.
      this.controller.abort();
      reader.releaseLock();
    }
  }

  /**
   * Reads the stream to its end (if the loop has not) and returns the final `done` envelope; a stream
   * that ended with `event: error` throws it as a StreamError.
   */
  async finalEnvelope(): Promise<ProductEnvelope> {
    if (!this.iterated) {
      for await (const event of this) void event;
    } else if (!this.ended) {
      throw new Error('finalEnvelope() while a loop is still reading the stream');
    }
    if (this.errorData) throw new StreamError(this.errorData.code, this.errorData.source, this.errorData.message);
    if (!this.sawDone || !this.lastEnvelope) throw new ProtocolError('The staged stream was left before its done event');
    return this.lastEnvelope;
  }

  private record(event: StagedEvent): void {
    if (event.name === 'error') this.errorData = event.data;
    else this.lastEnvelope = event.data;
    if (event.name === 'done') this.sawDone = true;
  }
}
