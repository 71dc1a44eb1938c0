/**
 * Staged SSE writer (hub-contract §3.1, decisions 2 and 12, clients.md §6 SSE-writer cases): frame
 * format and injection-proofing, then `streamStagedEvents` against a real loopback HTTP server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { EngineEvent } from '../../../server/answer/events';
import type { ProductEnvelope } from '../../../server/answer/envelope';
import { HubError } from '../../../server/errors';
import { HEARTBEAT_FRAME, flushStagedHeaders, formatSseEvent, streamStagedEvents, type StreamOutcome } from '../../../server/chat/sse';
import { parseChartSearchStream } from '../../support/chartsearch-sse';

/** A spec-compliant reader (splits on CR, LF and CRLF), stricter about line breaks than the module. */
function specParse(raw: string): EventSourceMessage[] {
  const out: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => out.push(e) });
  parser.feed(raw);
  return out;
}

const FORGED = 'ok\revent: done\rdata: {"answer":"forged"}\r\n\r\nevent: done\ndata: {}\n\n';

describe('formatSseEvent', () => {
  const cases: Array<[string, unknown, string]> = [
    ['single-line JSON object', { answer: 'Weight 71 kg [2].' }, 'event: answer_done\ndata: {"answer":"Weight 71 kg [2]."}\n\n'],
    ['CR, LF and CRLF inside JSON stay escaped', { answer: 'a\rb\nc\r\nd' }, 'event: answer_done\ndata: {"answer":"a\\rb\\nc\\r\\nd"}\n\n'],
    ['U+2028/U+2029 are escaped', { answer: 'a\u2028b\u2029c' }, 'event: answer_done\ndata: {"answer":"a\\u2028b\\u2029c"}\n\n'],
    ['raw text is split on CR, CRLF and LF alike', 'one\rtwo\r\nthree\nfour', 'event: answer_done\ndata: one\ndata: two\ndata: three\ndata: four\n\n'],
    ['an absent payload is framed as null', undefined, 'event: answer_done\ndata: null\n\n'],
  ];
  it.each(cases)('%s', (_label, data, expected) => {
    expect(formatSseEvent('answer_done', data)).toBe(expected);
  });

  it('writes JSON payloads on exactly one data line that parses back to the original', () => {
    const data = { answer: 'x\r\ny\n\rz\u2028', nested: { text: '\n\n\r' } };
    const frame = formatSseEvent('answer_validation', data);
    expect(frame.split('\n').filter((l) => l.startsWith('data:'))).toHaveLength(1);
    expect(frame).not.toMatch(/[\r\u2028\u2029]/);
    expect(JSON.parse(frame.split('\n')[1].slice('data: '.length))).toEqual(data);
  });

  it('keeps surrogate pairs whole and escapes lone surrogates (no broken UTF-8 on the wire)', () => {
    const data = { answer: 'Stethoscope 🩺 and 𝔸 — fine', lone: 'bad\ud83e' };
    const frame = formatSseEvent('answer_done', data);
    expect(frame).toContain('🩺');
    expect(frame).toContain('\\ud83e');
    // Through UTF-8 bytes and back, as the socket carries it.
    const wire = Buffer.from(frame, 'utf8').toString('utf8');
    expect(parseChartSearchStream(wire).events[0].data).toEqual(data);
  });

  it('a forged "\\revent: done\\rdata: {…}" inside a payload yields exactly one frame, read as the original event', () => {
    const data = { answer: FORGED, inDepth: { status: 'pending', answer: '' } };
    const raw = formatSseEvent('answer_done', data);
    const parsed = parseChartSearchStream(raw);
    expect(parsed.events).toEqual([{ name: 'answer_done', data }]);
    expect(parsed.turns).not.toContain('turn_done');
    expect(specParse(raw)).toEqual([expect.objectContaining({ event: 'answer_done', data: JSON.stringify(data) })]);
  });

  it('raw text carrying a forged frame is still one frame for a spec-compliant reader', () => {
    const raw = formatSseEvent('note', FORGED);
    const events = specParse(raw);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'note', data: FORGED.replace(/\r\n|\r/g, '\n') });
    // The module would reject the text frame outright; it never sees a `done`.
    expect(parseChartSearchStream(raw).turns).not.toContain('turn_done');
  });

  it.each(['', 'a\nb', 'done\r', 'a:b', ' done', 'x\u2028'])('rejects the event name %j', (name) => {
    expect(() => formatSseEvent(name, {})).toThrow(TypeError);
  });

  it('heartbeat is an SSE comment', () => {
    expect(HEARTBEAT_FRAME).toBe(': hb\n\n');
  });
});

// --- streamStagedEvents over a real socket --------------------------------------------------------

interface Served {
  port: number;
  outcome: Promise<StreamOutcome | Error>;
  close(): Promise<void>;
}

/** One staged request per server: headers first, then the producer's events, as the route does. */
async function serve(
  producer: (signal: AbortSignal) => AsyncIterable<EngineEvent>,
  opts: { heartbeatMs?: number; onEvent?: (e: EngineEvent) => void } = {},
): Promise<Served> {
  let settle: (v: StreamOutcome | Error) => void = () => undefined;
  const outcome = new Promise<StreamOutcome | Error>((resolve) => (settle = resolve));
  const server = http.createServer((_req, res) => {
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    flushStagedHeaders(res);
    streamStagedEvents(res, producer(abort.signal), { heartbeatMs: opts.heartbeatMs ?? 50, signal: abort.signal, onEvent: opts.onEvent }).then(settle, (err: Error) => {
      // What a route does with a producer failure: one terminal error frame, then end.
      res.end(formatSseEvent('error', { code: (err as HubError).code ?? 'internal_error', source: 'hub', message: err.message }));
      settle(err);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    outcome,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Client {
  res: http.IncomingMessage;
  req: http.ClientRequest;
  /** Resolves with the whole body once the server ends it. */
  body: Promise<string>;
  /** Resolves once the body so far contains `text`. */
  seen(text: string): Promise<void>;
}

function open(port: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      const waiters: Array<{ needle: string; done: () => void }> = [];
      res.on('data', (chunk: string) => {
        text += chunk;
        for (const w of waiters.filter((x) => text.includes(x.needle))) w.done();
      });
      const body = new Promise<string>((done) => res.on('end', () => done(text)));
      const seen = (needle: string): Promise<void> => (text.includes(needle) ? Promise.resolve() : new Promise((done) => waiters.push({ needle, done })));
      resolve({ res, req, body, seen });
    });
    req.on('error', reject);
  });
}

/** A partial envelope: the writer frames whatever envelope it is handed, so only a few keys matter here. */
const env = (status: string, extra: Record<string, unknown> = {}): ProductEnvelope =>
  ({
    answer: 'Weight is 71 kg [1].',
    references: [],
    blocks: [],
    answerValidation: { status: 'checked' },
    inDepth: { status, answer: '' },
    ...extra,
  }) as unknown as ProductEnvelope;

/** A gate the test opens to let a stalled producer continue. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('streamStagedEvents', () => {
  let served: Served | null = null;
  afterEach(async () => {
    await served?.close();
    served = null;
  });

  it('flushes staged headers before the producer yields anything', async () => {
    const release = gate();
    served = await serve(async function* () {
      await release.wait;
      yield { name: 'done', data: env('complete') };
    });
    const client = await open(served.port);
    expect(client.res.statusCode).toBe(200);
    expect(client.res.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    release.open();
    expect(parseChartSearchStream(await client.body).turns).toEqual(['turn_started', 'answer_done', 'turn_done']);
    await expect(served.outcome).resolves.toBe('completed');
  });

  it('writes heartbeats repeatedly while the producer stalls, and events in order', async () => {
    const heartbeatMs = 40;
    const seen: string[] = [];
    served = await serve(
      async function* () {
        yield { name: 'answer_done', data: env('pending', { answerValidation: { status: 'checking' } }) };
        await sleep(heartbeatMs * 3 + 20);
        yield { name: 'indepth_pending', data: env('pending') };
        yield { name: 'indepth_done', data: env('complete') };
        yield { name: 'done', data: env('complete') };
      },
      { heartbeatMs, onEvent: (e) => seen.push(e.name) },
    );
    const client = await open(served.port);
    const body = await client.body;
    const stall = body.slice(body.indexOf('event: answer_done'), body.indexOf('event: indepth_pending'));
    expect(stall.split(HEARTBEAT_FRAME).length - 1).toBeGreaterThanOrEqual(2);
    const parsed = parseChartSearchStream(body);
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'indepth_pending', 'indepth_done', 'done']);
    expect(parsed.heartbeats).toBeGreaterThanOrEqual(2);
    expect(parsed.settled).toEqual([]);
    expect(seen).toEqual(['answer_done', 'indepth_pending', 'indepth_done', 'done']);
    await expect(served.outcome).resolves.toBe('completed');
  });

  it('stops after the terminal event: ends the response, never pulls further events, runs the finally', async () => {
    let pulledAfterTerminal = false;
    let finallyRan = false;
    served = await serve(async function* () {
      try {
        yield { name: 'error', data: { code: 'insufficient_context', source: 'querystore', message: 'chart too large' } };
        pulledAfterTerminal = true;
        yield { name: 'done', data: env('complete') };
      } finally {
        finallyRan = true;
      }
    });
    const client = await open(served.port);
    const body = await client.body;
    expect(body).toBe(formatSseEvent('error', { code: 'insufficient_context', source: 'querystore', message: 'chart too large' }));
    await expect(served.outcome).resolves.toBe('completed');
    expect(finallyRan).toBe(true);
    expect(pulledAfterTerminal).toBe(false);
  });

  it('a client disconnect cancels the producer (its finally runs) and resolves client_gone', async () => {
    const finallyRan = gate();
    let abortedBySignal = false;
    served = await serve(async function* (signal) {
      try {
        yield { name: 'answer_done', data: env('pending') };
        await sleep(60_000, undefined, { signal }).catch((err: Error) => {
          abortedBySignal = err.name === 'AbortError';
          throw err;
        });
        yield { name: 'done', data: env('complete') };
      } finally {
        finallyRan.open();
      }
    });
    const client = await open(served.port);
    await client.seen('event: answer_done');
    client.req.destroy();
    await expect(served.outcome).resolves.toBe('client_gone');
    await finallyRan.wait;
    expect(abortedBySignal).toBe(true);
  });

  it('resolves client_gone promptly even when the producer ignores the signal; its finally runs once it resumes', async () => {
    const release = gate();
    const finallyRan = gate();
    let resumedWork = false;
    served = await serve(async function* () {
      try {
        yield { name: 'answer_done', data: env('pending') };
        await release.wait;
        resumedWork = true;
        yield { name: 'done', data: env('complete') };
      } finally {
        finallyRan.open();
      }
    });
    const client = await open(served.port);
    await client.seen('event: answer_done');
    client.req.destroy();
    await expect(served.outcome).resolves.toBe('client_gone');
    release.open();
    await finallyRan.wait;
    expect(resumedWork).toBe(true);
  });

  it('gives up waiting for drain when a client that stopped reading goes away', async () => {
    const finallyRan = gate();
    const big = 'x'.repeat(8 * 1024 * 1024);
    served = await serve(async function* () {
      try {
        for (let i = 0; i < 100; i += 1) yield { name: 'answer_done', data: env('pending', { answer: big }) };
        yield { name: 'done', data: env('complete') };
      } finally {
        finallyRan.open();
      }
    });
    const client = await open(served.port);
    client.res.pause();
    await sleep(100);
    client.req.destroy();
    await expect(served.outcome).resolves.toBe('client_gone');
    await finallyRan.wait;
  });

  it('delivers large frames whole under backpressure', async () => {
    const big = '🩺'.repeat(2 * 1024 * 1024);
    served = await serve(async function* () {
      yield { name: 'answer_done', data: env('pending', { answer: big }) };
      yield { name: 'done', data: env('complete', { answer: big }) };
    });
    const client = await open(served.port);
    client.res.pause();
    await sleep(50);
    client.res.resume();
    const parsed = parseChartSearchStream(await client.body);
    expect(parsed.events.map((e) => [e.name, e.data.answer === big])).toEqual([
      ['answer_done', true],
      ['done', true],
    ]);
  });

  it('rejects (response left open for the caller) when the producer fails or ends without a terminal', async () => {
    served = await serve(async function* () {
      yield { name: 'answer_done', data: env('pending') };
    });
    const client = await open(served.port);
    const parsed = parseChartSearchStream(await client.body);
    expect(parsed.turns).toEqual(['turn_started', 'answer_done', 'turn_error']);
    expect(parsed.problemCode).toBe('internal_error');
    const outcome = await served.outcome;
    expect(outcome).toBeInstanceOf(HubError);

    await served.close();
    served = await serve(async function* () {
      yield* [];
      throw new Error('stage exploded');
    });
    const second = await open(served.port);
    expect(parseChartSearchStream(await second.body).events).toEqual([{ name: 'error', data: { code: 'internal_error', source: 'hub', message: 'stage exploded' } }]);
  });

  it('an already-aborted signal writes nothing and closes the producer', async () => {
    let finallyRan = false;
    async function* producer(): AsyncGenerator<EngineEvent> {
      try {
        yield { name: 'done', data: env('complete') };
      } finally {
        finallyRan = true;
      }
    }
    const writes: unknown[] = [];
    // No socket needed: with the signal already aborted nothing may reach write().
    const fakeRes = new http.ServerResponse(new http.IncomingMessage(null as never));
    fakeRes.write = ((chunk: unknown) => writes.push(chunk)) as never;
    const iterable = producer();
    await iterable.next().catch(() => undefined); // start it so return() reaches the finally
    const abort = new AbortController();
    abort.abort();
    await expect(streamStagedEvents(fakeRes, iterable, { heartbeatMs: 50, signal: abort.signal })).resolves.toBe('client_gone');
    await sleep(0);
    expect(writes).toEqual([]);
    expect(finallyRan).toBe(true);
  });

  it('refuses a non-positive heartbeat interval', async () => {
    const res = new http.ServerResponse(new http.IncomingMessage(null as never));
    await expect(streamStagedEvents(res, (async function* () {})(), { heartbeatMs: 0, signal: new AbortController().signal })).rejects.toThrow(RangeError);
  });
});
