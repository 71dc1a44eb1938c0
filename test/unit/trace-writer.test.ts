import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TraceWriter } from '../../server/trace/writer';

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
});
