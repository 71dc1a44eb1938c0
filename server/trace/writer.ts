/**
 * The per-turn trace (decision 13, §11.2): one JSON line per turn in `$TEAM_TRACE_DIR/trace.jsonl`,
 * file mode 0600. Lines are appended by one sequential writer, whole lines per write, so concurrent
 * turns never interleave. Lines that arrive within `flushMs` of each other share one write: on this
 * class of machine a file write cost a third of a low-level leg's CPU. A failed write never fails the
 * turn: its lines are counted and reported.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sanitizedJson } from '../sanitize';

export interface TraceSink {
  append(record: Record<string, unknown>): void;
  /** Resolves when every line appended so far has been written (or has failed). */
  flush(): Promise<void>;
  stats(): { written: number; failed: number };
}

/** How long a trace line may wait for others to share its write (HUB_TRACE_FLUSH_MS). */
export const DEFAULT_TRACE_FLUSH_MS = 50;
/** A batch is written at once when this many lines wait, whatever the time. */
const MAX_PENDING_LINES = 256;

export class TraceWriter implements TraceSink {
  private readonly file: string;
  private handle: Promise<fs.promises.FileHandle> | null = null;
  private tail: Promise<void> = Promise.resolve();
  /** Serialised lines waiting for their write, as UTF-8 bytes (outside the collected heap). */
  private pending: Buffer[] = [];
  private timer: NodeJS.Timeout | null = null;
  private written = 0;
  private failed = 0;
  /** File writes made (each carries one or more whole lines). */
  writes = 0;

  constructor(
    dir: string,
    private readonly onError: (err: unknown) => void = () => {},
    fileName = 'trace.jsonl',
    private readonly flushMs = DEFAULT_TRACE_FLUSH_MS,
  ) {
    this.file = path.join(dir, fileName);
  }

  private open(): Promise<fs.promises.FileHandle> {
    if (!this.handle) {
      this.handle = (async () => {
        await fs.promises.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
        const fh = await fs.promises.open(this.file, 'a', 0o600);
        // A file created earlier with a wider mode is narrowed: traces hold clinical text.
        await fh.chmod(0o600);
        return fh;
      })();
      // A failed open is retried on the next batch instead of poisoning the writer.
      this.handle.catch(() => (this.handle = null));
    }
    return this.handle;
  }

  /**
   * Serialises and sanitises a turn's record now (callers append once the turn's response is written) and
   * queues the line. Kept as an object until its batch was written, a record outlived two or three young
   * collections under load and was copied into the old generation with everything it referenced; a line
   * is its bytes, which young collections do not copy. One record per call, so a batch of large turns is
   * never serialised in one piece.
   */
  append(record: Record<string, unknown>): void {
    this.pending.push(Buffer.from(`${sanitizedJson(record)}\n`, 'utf8'));
    if (this.pending.length >= MAX_PENDING_LINES) {
      void this.writePending();
      return;
    }
    if (!this.timer) {
      this.timer = setTimeout(() => void this.writePending(), this.flushMs);
      // Waiting lines never keep the process alive; close() (shutdown) writes them.
      this.timer.unref();
    }
  }

  /** Writes the waiting lines now; resolves when every line appended so far has been written or has failed. */
  flush(): Promise<void> {
    return this.writePending();
  }

  async close(): Promise<void> {
    await this.writePending();
    const h = this.handle;
    this.handle = null;
    if (h) await (await h).close().catch(() => undefined);
  }

  private writePending(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.pending;
    if (batch.length === 0) return this.tail;
    this.pending = [];
    this.tail = this.tail.then(async () => {
      try {
        const fh = await this.open();
        this.writes++;
        // One write of the whole batch: writev appends at the end (the file is open in append mode).
        await writeAll(fh, batch);
        this.written += batch.length;
      } catch (err) {
        // Counted and reported per line, as each line is a turn's record.
        this.failed += batch.length;
        for (let i = 0; i < batch.length; i++) this.onError(err);
      }
    });
    return this.tail;
  }

  stats(): { written: number; failed: number } {
    return { written: this.written, failed: this.failed };
  }
}

/** Writes every buffer, in order, resuming after a short write. */
export async function writeAll(fh: fs.promises.FileHandle, buffers: Buffer[]): Promise<void> {
  let rest = buffers;
  while (rest.length > 0) {
    const { bytesWritten } = await fh.writev(rest);
    if (bytesWritten <= 0) throw new Error('the trace file took no bytes');
    let left = bytesWritten;
    let i = 0;
    while (i < rest.length && left >= rest[i].length) left -= rest[i++].length;
    rest = rest.slice(i);
    if (left > 0) rest[0] = rest[0].subarray(left);
  }
}
