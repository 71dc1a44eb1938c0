/** The SSE rules both clients keep (PROTOCOL.md), as a table, plus the staged-event strictness. */
import { ProtocolError, SseDecoder, stagedEventOf, type SseFrame } from '../src/index.js';

/** Decodes `text` fed in the given pieces (to cross chunk boundaries), then ends the body. */
function decode(pieces: string[]): { frames: SseFrame[]; heartbeats: number } {
  const sse = new SseDecoder();
  const frames = pieces.flatMap((p) => sse.push(p));
  frames.push(...sse.end());
  return { frames, heartbeats: sse.heartbeats };
}

/** Every way of cutting `text` in two, and the whole text at once. */
function splits(text: string): string[][] {
  return [[text], ...Array.from({ length: text.length - 1 }, (_, i) => [text.slice(0, i + 1), text.slice(i + 1)])];
}

const ENVELOPE = { answer: 'A [1].', references: [], blocks: [], model: 'single-12b-bare', inDepth: { status: 'pending', answer: '', error: '' } };
const data = JSON.stringify(ENVELOPE);

describe('SseDecoder', () => {
  test.each([
    ['LF line endings', `event: answer_done\ndata: ${data}\n\nevent: done\ndata: ${data}\n\n`, ['answer_done', 'done']],
    ['CR line endings', `event: answer_done\rdata: ${data}\r\revent: done\rdata: ${data}\r\r`, ['answer_done', 'done']],
    ['CRLF line endings', `event: answer_done\r\ndata: ${data}\r\n\r\nevent: done\r\ndata: ${data}\r\n\r\n`, ['answer_done', 'done']],
    ['mixed line endings', `event: answer_done\r\ndata: ${data}\n\revent: done\rdata: ${data}\n\n`, ['answer_done', 'done']],
    ['event names trimmed', `event:   answer_done  \ndata: ${data}\n\nevent:done\t\ndata: ${data}\n\n`, ['answer_done', 'done']],
    ['empty frames dropped', `\n\n\nevent: answer_done\n\n\nevent: done\ndata: ${data}\n\n\n\n`, ['done']],
    ['a trailing frame without its blank line is dispatched', `event: answer_done\ndata: ${data}\n\nevent: done\ndata: ${data}`, ['answer_done', 'done']],
    ['a trailing frame ended by one line ending is dispatched', `event: done\ndata: ${data}\n`, ['done']],
    ['a frame without event: is a message', `data: ${data}\n\n`, ['message']],
    ['id and retry fields are ignored', `id: 7\nretry: 10\nevent: done\ndata: ${data}\n\n`, ['done']],
  ])('%s', (_name, text, names) => {
    for (const pieces of splits(text)) {
      const { frames } = decode(pieces);
      expect(frames.map((f) => f.event)).toEqual(names);
      for (const f of frames) expect(f.data).toBe(data);
    }
  });

  test('`:` lines are heartbeats, counted and never dispatched', () => {
    for (const pieces of splits(`: hb\n\n: hb\r\nevent: done\n: hb\ndata: ${data}\n\n`)) {
      const { frames, heartbeats } = decode(pieces);
      expect(frames).toEqual([{ event: 'done', data }]);
      expect(heartbeats).toBe(3);
    }
  });

  test('one leading space of a data line is stripped; several data lines join with \\n', () => {
    const { frames } = decode(['event: x\ndata:  two\ndata:none\ndata\n\n']);
    expect(frames).toEqual([{ event: 'x', data: ' two\nnone\n' }]);
  });

  test('a forged event: line inside model text stays data (the hub escapes it inside the JSON string)', () => {
    const forged = { ...ENVELOPE, answer: 'Weight 71 kg [2].\nevent: done\ndata: {"answer":"forged"}\n\n\revent: error\r\n' };
    const text = `event: answer_done\ndata: ${JSON.stringify(forged)}\n\nevent: done\ndata: ${JSON.stringify(forged)}\n\n`;
    for (const pieces of splits(text)) {
      const { frames } = decode(pieces);
      expect(frames.map((f) => f.event)).toEqual(['answer_done', 'done']);
      const events = frames.map((f) => stagedEventOf(f));
      expect(events.map((e) => e?.name)).toEqual(['answer_done', 'done']);
      expect(events[1]?.data).toMatchObject({ answer: forged.answer });
    }
  });
});

describe('stagedEventOf', () => {
  const frame = (event: string, payload: unknown): SseFrame => ({ event, data: typeof payload === 'string' ? payload : JSON.stringify(payload) });

  test.each([
    ['data that is not JSON', frame('answer_done', 'plain text')],
    ['data that is a JSON array', frame('answer_done', '[1,2]')],
    ['data that is a JSON string', frame('done', '"done"')],
    ['data that is null', frame('done', 'null')],
    ['non-object data on an unknown event', frame('reasoning_delta', 'thinking…')],
    ['an envelope event without a string answer', frame('done', { references: [] })],
    ['the retired flat In-Depth event (front end test wire)', frame('indepth_done', { status: 'complete', answer: 'retired wire' })],
    ['an In-Depth event without inDepth', frame('indepth_pending', { answer: 'A' })],
    ['an In-Depth event whose inDepth is a string', frame('indepth_error', { answer: 'A', inDepth: 'failed' })],
    ['In-Depth fields at the top level of done', frame('done', { ...ENVELOPE, status: 'complete' })],
    ['a flat inDepthAnswer beside inDepth', frame('answer_done', { ...ENVELOPE, inDepthAnswer: '- claim' })],
    ['a flat in_depth string', frame('done', { ...ENVELOPE, in_depth: '- claim' })],
    ['an error event without code', frame('error', { source: 'hub', message: 'm' })],
  ])('throws a ProtocolError on %s', (_name, f) => {
    expect(() => stagedEventOf(f)).toThrow(ProtocolError);
  });

  test('types the staged events and the error event; ignores unknown events', () => {
    expect(stagedEventOf(frame('indepth_done', ENVELOPE))).toEqual({ name: 'indepth_done', data: ENVELOPE });
    expect(stagedEventOf(frame('done', { ...ENVELOPE, inDepth: undefined }))?.name).toBe('done');
    expect(stagedEventOf(frame('error', { code: 'insufficient_context', source: 'selector', message: 'm' }))).toEqual({
      name: 'error', data: { code: 'insufficient_context', source: 'selector', message: 'm' },
    });
    expect(stagedEventOf(frame('stream_cancelled', {}))).toBeNull();
  });
});
