import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TraceWriter, writeAll } from '../../server/trace/writer';

describe('TraceWriter', () => {
  test('lines are written whole, in order, secrets redacted', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-tw-'));
    const w = new TraceWriter(dir);
    for (let i = 0; i < 50; i++) w.append({ i, api_key: 'k', backend: 'http://user:pw@router:8077/v1?token=x' });
    await w.close();
    const lines = fs.readFileSync(path.join(dir, 'trace.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(lines[0].api_key).toBe('[redacted]');
    expect(lines[0].backend).toBe('http://router:8077/v1');
    expect(w.stats()).toEqual({ written: 50, failed: 0 });
  });

  test('a failed write is counted and reported, never thrown', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-tw-'));
    const blocker = path.join(dir, 'not-a-dir');
    fs.writeFileSync(blocker, 'x');
    const errors: unknown[] = [];
    const w = new TraceWriter(path.join(blocker, 'trace'), (e) => errors.push(e));
    w.append({ a: 1 });
    w.append({ a: 2 });
    await w.flush();
    expect(w.stats()).toEqual({ written: 0, failed: 2 });
    expect(errors).toHaveLength(2);
  });

  test('lines finished close together share one write; flush writes what waits at once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-tw-'));
    const file = path.join(dir, 'trace.jsonl');
    // A flush period no test could outlast: only flush() or a full batch writes.
    const w = new TraceWriter(dir, () => {}, 'trace.jsonl', 3_600_000);
    for (let i = 0; i < 10; i++) w.append({ i });
    expect(fs.existsSync(file)).toBe(false);
    await w.flush();
    expect(w.writes).toBe(1);
    expect(fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l).i)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    // 256 waiting lines are written without waiting for the period.
    for (let i = 0; i < 256; i++) w.append({ i: 10 + i });
    await new Promise((r) => setImmediate(r));
    await w.flush();
    expect(w.writes).toBe(2);
    w.append({ i: 266 });
    await w.close();
    expect(w.writes).toBe(3);
    expect(w.stats()).toEqual({ written: 267, failed: 0 });
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(267);
  });

  test('with a zero period each turn\'s line is written on the next turn of the loop', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-tw-'));
    const w = new TraceWriter(dir, () => {}, 'trace.jsonl', 0);
    w.append({ i: 0 });
    await new Promise((r) => setTimeout(r, 5));
    await w.flush();
    expect(w.stats()).toEqual({ written: 1, failed: 0 });
    await w.close();
  });
});

describe('writeAll', () => {
  /** A file handle whose writev takes at most `max` bytes per call (a short write), recording what it took. */
  function shortWriter(max: number) {
    const taken: Buffer[] = [];
    const fh = {
      async writev(buffers: Buffer[]) {
        const all = Buffer.concat(buffers).subarray(0, max);
        taken.push(all);
        return { bytesWritten: all.length, buffers };
      },
    };
    return { fh: fh as unknown as import('node:fs').promises.FileHandle, text: () => Buffer.concat(taken).toString('utf8') };
  }

  test.each([1, 3, 7, 1000])('lines arrive whole and in order when the file takes %i bytes a write', async (max) => {
    const { fh, text } = shortWriter(max);
    const lines = ['{"a":1}\n', '{"b":"é—"}\n', '\n', '{"c":[1,2,3]}\n'];
    await writeAll(fh, lines.map((l) => Buffer.from(l)));
    expect(text()).toBe(lines.join(''));
  });

  test('a file that takes nothing is an error, not a loop', async () => {
    const { fh } = shortWriter(0);
    await expect(writeAll(fh, [Buffer.from('x\n')])).rejects.toThrow('took no bytes');
  });
});
