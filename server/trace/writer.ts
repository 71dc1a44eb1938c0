/**
 * The per-turn trace (decision 13, §11.2): one JSON line per turn in `$TEAM_TRACE_DIR/trace.jsonl`,
 * file mode 0600. Lines are appended by one sequential writer, each in a single write, so concurrent
 * turns never interleave. A failed write never fails the turn: it is counted and reported.
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

export class TraceWriter implements TraceSink {
  private readonly file: string;
  private handle: Promise<fs.promises.FileHandle> | null = null;
  private tail: Promise<void> = Promise.resolve();
  private written = 0;
  private failed = 0;

  constructor(
    dir: string,
    private readonly onError: (err: unknown) => void = () => {},
    fileName = 'trace.jsonl',
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
      // A failed open is retried on the next line instead of poisoning the writer.
      this.handle.catch(() => (this.handle = null));
    }
    return this.handle;
  }

  /**
   * Queues a turn's record. Serialising and sanitising happen in the write chain, off the response
   * path (the record is the finished turn's, nothing mutates it afterwards).
   */
  append(record: Record<string, unknown>): void {
    // setImmediate: let the turn's response go out before this record is serialised.
    const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
    this.tail = this.tail.then(nextTurn).then(async () => {
      try {
        const line = `${sanitizedJson(record)}\n`;
        const fh = await this.open();
        await fh.appendFile(line, 'utf8');
        this.written++;
      } catch (err) {
        this.failed++;
        this.onError(err);
      }
    });
  }

  flush(): Promise<void> {
    return this.tail;
  }

  async close(): Promise<void> {
    await this.tail;
    const h = this.handle;
    this.handle = null;
    if (h) await (await h).close().catch(() => undefined);
  }

  stats(): { written: number; failed: number } {
    return { written: this.written, failed: this.failed };
  }
}
