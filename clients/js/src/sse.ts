/**
 * Server-sent events as the deployed ChartSearchAI module reads the hub (clients.md §2.1), kept by both
 * clients of this repository (clients/conformance/PROTOCOL.md): lines end at CR, LF or CRLF; event
 * names are trimmed; a frame without data is dropped; a trailing frame without its blank line is still
 * dispatched at the end of the body; `:` lines are heartbeats. Interpreting the data is staged.ts's job.
 */

export interface SseFrame {
  /** The trimmed `event:` value, or `message` when the frame named none. */
  event: string;
  /** The `data:` lines joined with `\n` (one leading space of each stripped). */
  data: string;
}

/** Incremental: feed text as it arrives, then `end()` once the body is over. */
export class SseDecoder {
  private buffer = '';
  /** The last chunk ended in CR: an LF opening the next chunk belongs to that line ending. */
  private afterCR = false;
  private event = '';
  private data: string[] = [];
  /** `:` comment lines seen so far (the hub's `: hb` heartbeats). */
  heartbeats = 0;

  push(text: string): SseFrame[] {
    if (this.afterCR && text.startsWith('\n')) text = text.slice(1);
    this.afterCR = false;
    this.buffer += text;
    const frames: SseFrame[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      this.line(this.buffer.slice(start, i), frames);
      if (ch === 13) {
        if (i + 1 === this.buffer.length) this.afterCR = true;
        else if (this.buffer.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return frames;
  }

  /** The end of the body: a last line without its line ending, and a frame without its blank line, still count. */
  end(): SseFrame[] {
    const frames: SseFrame[] = [];
    if (this.buffer !== '') this.line(this.buffer, frames);
    this.buffer = '';
    this.dispatch(frames);
    return frames;
  }

  private line(line: string, frames: SseFrame[]): void {
    if (line === '') return this.dispatch(frames);
    if (line.startsWith(':')) {
      this.heartbeats++;
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value.trim();
    else if (field === 'data') this.data.push(value);
    // `id`, `retry` and unknown fields carry nothing the hub's clients read.
  }

  private dispatch(frames: SseFrame[]): void {
    if (this.data.length > 0) frames.push({ event: this.event || 'message', data: this.data.join('\n') });
    this.event = '';
    this.data = [];
  }
}
