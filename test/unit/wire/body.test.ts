/**
 * Large bodies are read in slices (depth, decode in runs, parse) instead of in one 10–30 ms piece. The
 * sliced read must answer exactly as body-parser's one-piece read: the same body, or the same error
 * status and wire body, for every input — valid or not, any charset, encoding, depth or size.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import express from 'express';
import iconv from 'iconv-lite';
import { LoopSlice } from '../../../server/event-loop';
import { decodeUtf8InSlices, jsonBody, readSlicedBody } from '../../../server/wire/body';
import { MAX_BODY_DEPTH } from '../../../server/wire/body-depth';

function lcg(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** Byte atoms: ASCII, valid 2–4 byte sequences, a byte-order mark, and broken or overlong sequences. */
const BYTE_ATOMS = [[0x41], [0x7b], [0x22], [0xc3, 0xa9], [0xe2, 0x80, 0xa8], [0xf0, 0x9f, 0x92, 0xa9], [0x80], [0xc3], [0xe2, 0x80], [0xf0, 0x9f], [0xff], [0xed, 0xa0, 0x80], [0xef, 0xbb, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf]];

describe('decodeUtf8InSlices', () => {
  test("equals body-parser's decode (iconv-lite utf-8) on 10,000 random byte strings cut into random runs", async () => {
    const rand = lcg(5);
    for (let i = 0; i < 10_000; i++) {
      const bytes: number[] = [];
      const n = Math.floor(rand() * 14);
      for (let j = 0; j < n; j++) bytes.push(...BYTE_ATOMS[Math.floor(rand() * BYTE_ATOMS.length)]);
      const buf = Buffer.from(bytes);
      const got = await decodeUtf8InSlices(buf, new LoopSlice(0), 1 + Math.floor(rand() * 5));
      expect({ hex: buf.toString('hex'), got }).toEqual({ hex: buf.toString('hex'), got: iconv.decode(buf, 'utf-8') });
    }
  });

  test('yields between runs when the budget is spent', async () => {
    const slice = new LoopSlice(0);
    expect(await decodeUtf8InSlices(Buffer.from('é'.repeat(1000)), slice, 100)).toBe('é'.repeat(1000));
    expect(slice.yields).toBe(19);
  });
});

describe('readSlicedBody', () => {
  test('readSlicedBody in tiny runs refuses, parses or fails exactly as the one-piece checks do', async () => {
    const deep = Buffer.from(`{"patient":${'['.repeat(MAX_BODY_DEPTH + 2)}1${']'.repeat(MAX_BODY_DEPTH + 2)}}`);
    await expect(readSlicedBody(deep, 7)).rejects.toMatchObject({ type: 'entity.too.deep', field: 'patient' });
    expect(await readSlicedBody(Buffer.from('\ufeff {"a":"é😀"}'), 3)).toEqual({ a: 'é😀' });
    await expect(readSlicedBody(Buffer.from(' "str"'), 2)).rejects.toMatchObject({ type: 'entity.parse.failed' });
  });
});

interface Served {
  url: string;
  close(): Promise<void>;
}

/** An app with the hub's body middleware and a route echoing what it parsed. */
async function serve(sliceAbove: number, plainRead = true): Promise<Served> {
  const app = express();
  app.use(...jsonBody({ limit: 4096, sliceAbove, plainRead }));
  app.post('/echo', (req, res) => {
    res.json({ body: req.body as unknown });
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/echo`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

interface Sent {
  body: Buffer;
  headers: Record<string, string>;
}

const JSON_ATOMS = ['{', '}', '[', ']', '"', '\\', ',', ':', ' ', '\n', '\t', '\r', '\ufeff', 'é', '😀', '\u2028', 'true', 'null', '1', '-2.5e3', '"k"', '"v"', '{"a":1}', '[1,2]', 'x', '\u0000'];

/** Random request bodies: valid JSON, near-JSON, deep, BOM-led, blank, over the limit; some gzip'd or in another charset. */
function randomRequest(rand: () => number): Sent {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const r = rand();
  let text: string;
  if (r < 0.3) text = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: pick(JSON_ATOMS).repeat(1 + Math.floor(rand() * 40)) }], n: rand() });
  else if (r < 0.4) text = `${pick(['', ' ', '\ufeff', '\n\t'])}${JSON.stringify([pick(JSON_ATOMS), { x: rand() }])}${pick(['', ' ', 'x'])}`;
  else if (r < 0.5) text = `{"x":${'['.repeat(MAX_BODY_DEPTH - 2 + Math.floor(rand() * 4))}1${']'.repeat(MAX_BODY_DEPTH + 1)}${pick(['}', ''])}`;
  else if (r < 0.55) text = pick(['', ' ', '\ufeff', '"str"', '42', 'null', '\n']);
  else if (r < 0.6) text = JSON.stringify({ pad: 'y'.repeat(4000 + Math.floor(rand() * 200)) });
  else text = Array.from({ length: Math.floor(rand() * 30) }, () => pick(JSON_ATOMS)).join('');
  const headers: Record<string, string> = { 'content-type': pick(['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/json; charset=UTF-8', 'application/json; charset=utf-16le', 'application/json; charset=latin1', 'application/json;charset="utf-8"', 'application/json; charset=utf-8; x=1', 'application/json; charset=utf8', 'bad type; charset=utf-16le']) };
  let body = headers['content-type'].endsWith('utf-16le') ? iconv.encode(text, 'utf-16le') : Buffer.from(text, 'utf8');
  const encoding = pick([null, null, null, 'gzip', 'deflate', 'x-unknown']);
  if (encoding === 'gzip') body = zlib.gzipSync(body);
  if (encoding === 'deflate') body = zlib.deflateSync(body);
  if (encoding) headers['content-encoding'] = encoding;
  return { body, headers };
}

async function send(url: string, req: Sent): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { method: 'POST', body: req.body, headers: req.headers });
  return { status: res.status, body: await res.text() };
}

/** `got` answers 600 seeded random requests with the same status and wire body as `want`. */
async function expectSameAnswers(want: Served, got: Served, seed: number): Promise<void> {
  const rand = lcg(seed);
  const statuses = new Set<number>();
  for (let i = 0; i < 600; i++) {
    const req = randomRequest(rand);
    const expected = await send(want.url, req);
    const actual = await send(got.url, req);
    statuses.add(expected.status);
    expect({ i, text: req.body.toString('hex').slice(0, 120), headers: req.headers, ...actual }).toEqual({ i, text: req.body.toString('hex').slice(0, 120), headers: req.headers, ...expected });
  }
  // The corpus reaches every outcome: parsed, malformed or too deep, over the limit, unsupported.
  expect([...statuses].sort()).toEqual([200, 400, 413, 415]);
}

describe('jsonBody: sliced and one-piece reads answer alike', () => {
  let whole: Served;
  let sliced: Served;
  beforeAll(async () => {
    whole = await serve(Number.POSITIVE_INFINITY);
    sliced = await serve(0);
  });
  afterAll(async () => {
    await whole.close();
    await sliced.close();
  });

  test('the same status and wire body for 600 random requests', () => expectSameAnswers(whole, sliced, 29));

  test('a body just over the slicing threshold is parsed, the one just under it as before', async () => {
    const app = await serve(100);
    try {
      for (const n of [40, 200]) {
        const text = JSON.stringify({ s: 'é'.repeat(n) });
        const got = await send(app.url, { body: Buffer.from(text), headers: { 'content-type': 'application/json' } });
        expect(got).toEqual({ status: 200, body: JSON.stringify({ body: { s: 'é'.repeat(n) } }) });
      }
    } finally {
      await app.close();
    }
  });
});

describe('jsonBody: the plain read and body-parser answer alike', () => {
  let plain: Served;
  let parser: Served;
  beforeAll(async () => {
    plain = await serve(Number.POSITIVE_INFINITY, true);
    parser = await serve(Number.POSITIVE_INFINITY, false);
  });
  afterAll(async () => {
    await plain.close();
    await parser.close();
  });

  test('the same status and wire body for 600 random requests', () => expectSameAnswers(parser, plain, 31));

  test('a body sent in pieces (chunked, no declared length) goes to body-parser and parses the same', async () => {
    for (const app of [plain, parser]) {
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const r = http.request(app.url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
          let text = '';
          response.on('data', (c: Buffer) => (text += c.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        });
        r.on('error', reject);
        r.write('{"a":');
        r.end('"é"}');
      });
      expect(res).toEqual({ status: 200, body: JSON.stringify({ body: { a: 'é' } }) });
    }
  });
});
