/**
 * The embedders: `hash` (deterministic feature hashing, §5) and `openai-compatible` against a loopback fake
 * speaking the OpenAI embeddings wire (batching, order by `index`, auth, and each failure's message).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEmbedder } from '../../../server/knowledge/embedder';
import { createHashEmbedder, hashEmbed } from '../../../server/knowledge/embedder/hash';
import { cosine } from '../../../server/knowledge/store/row-hash';

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('hash embedder', () => {
  const e = createHashEmbedder(256);

  test('id and dimension name the space', () => {
    expect(e.id).toBe('hash-v1-256');
    expect(e.dimension).toBe(256);
    expect(createEmbedder().id).toBe('hash-v1-512');
    expect(() => createHashEmbedder(4)).toThrow(/dimension/);
  });

  test('deterministic and unit length', async () => {
    const [a, b] = await e.embed(['Allergie à la pénicilline', 'Allergie à la pénicilline']);
    expect(a).toHaveLength(256);
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(norm(a)).toBeCloseTo(1, 5);
  });

  test.each([
    ['pénicilline', 'PENICILLINE'],
    ['Pénicilline', 'penicilline'],
    ['e\u0301value', 'évalue'], // NFD and NFC
    ['  bêta-lactamines ', 'BETA LACTAMINES'],
  ])('folds accents and case: %s = %s', (x, y) => {
    expect(Array.from(hashEmbed(x, 128))).toEqual(Array.from(hashEmbed(y, 128)));
  });

  test('related wording is closer than unrelated wording', () => {
    const q = hashEmbed('allergie aux pénicillines', 512);
    const near = hashEmbed("En cas d'allergie à la pénicilline, ne pas prescrire", 512);
    const far = hashEmbed('Surveiller la glycémie du diabète de type 2', 512);
    expect(cosine(q, near)).toBeGreaterThan(cosine(q, far) + 0.2);
  });

  test('an empty text embeds to the zero vector', () => {
    expect(hashEmbed(' ;; ', 64).every((x) => x === 0)).toBe(true);
  });
});

interface Seen { body: { model: string; input: string[] }; auth: string | undefined }

/** A loopback fake of `/v1/embeddings`; `mode` picks the behaviour of the next requests. */
async function fakeEmbeddings(dimension: number) {
  const seen: Seen[] = [];
  let mode: 'ok' | 'reversed' | 'status500' | 'notjson' | 'wrongdim' | 'short' | 'hang' = 'ok';
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      if (req.url !== '/base/v1/embeddings' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(data) as Seen['body'];
      seen.push({ body, auth: req.headers.authorization });
      if (mode === 'hang') return;
      if (mode === 'status500') return void res.writeHead(500).end('model not loaded');
      if (mode === 'notjson') return void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>');
      const dim = mode === 'wrongdim' ? dimension + 1 : dimension;
      // Each vector encodes its input's length in component 0, so the test can check the order.
      let items = body.input.map((t, index) => ({ object: 'embedding', index, embedding: Array.from({ length: dim }, (_, i) => (i === 0 ? t.length : 1)) }));
      if (mode === 'reversed') items = items.reverse();
      if (mode === 'short') items = items.slice(1);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', model: body.model, data: items }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/base/`;
  return {
    base, seen,
    setMode: (m: typeof mode) => (mode = m),
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

describe('openai-compatible embedder', () => {
  let fake: Awaited<ReturnType<typeof fakeEmbeddings>>;
  beforeAll(async () => {
    fake = await fakeEmbeddings(4);
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.seen.length = 0;
    fake.setMode('ok');
  });

  const make = (over: Record<string, unknown> = {}) =>
    createEmbedder({ kind: 'openai-compatible', baseUrl: fake.base, model: 'e5-small', dimension: 4, apiKey: 'sk-test', timeoutMs: 2000, batchSize: 2, ...over });

  test('batches inputs, sends the model and the key, keeps the input order, unit-normalises', async () => {
    const e = make();
    expect(e.id).toBe('openai-compatible:e5-small');
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const vecs = await e.embed(texts);
    expect(fake.seen.map((s) => s.body.input)).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]);
    expect(fake.seen.every((s) => s.body.model === 'e5-small' && s.auth === 'Bearer sk-test')).toBe(true);
    vecs.forEach((v, i) => {
      expect(norm(v)).toBeCloseTo(1, 5);
      expect(v[0] / v[1]).toBeCloseTo(texts[i].length, 4);
    });
    await e.close();
  });

  test('orders the answer by `index`, not by position', async () => {
    fake.setMode('reversed');
    const e = make({ batchSize: 10 });
    const vecs = await e.embed(['a', 'bbb']);
    expect(vecs.map((v) => Math.round(v[0] / v[1]))).toEqual([1, 3]);
    await e.close();
  });

  test('no key header when the key is empty', async () => {
    const e = make({ apiKey: '' });
    await e.embed(['x']);
    expect(fake.seen[0].auth).toBeUndefined();
    await e.close();
  });

  test.each([
    ['status500', /answered HTTP 500: model not loaded/],
    ['notjson', /not JSON/],
    ['wrongdim', /returned 5-dimensional vectors but KNOWLEDGE_EMBEDDER_DIMENSION is 4/],
    ['short', /returned 1 embeddings for 2 inputs/],
    ['hang', /did not answer within 300 ms/],
  ] as const)('%s is a clear error naming the endpoint', async (mode, message) => {
    fake.setMode(mode);
    const e = make({ timeoutMs: 300 });
    const err = await e.embed(['a', 'b']).catch((x: Error) => x);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toContain('/base/v1/embeddings');
    await e.close();
  });

  test('a refused connection and a cancelled call are clear errors', async () => {
    const dead = createEmbedder({ kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1', model: 'm', dimension: 4, timeoutMs: 2000 });
    await expect(dead.embed(['x'])).rejects.toThrow(/cannot reach the embedder at http:\/\/127\.0\.0\.1:1\/v1\/embeddings/);
    await dead.close();
    fake.setMode('hang');
    const e = make();
    const ac = new AbortController();
    const p = e.embed(['x'], ac.signal);
    ac.abort();
    await expect(p).rejects.toThrow(/cancelled/);
    await e.close();
  });

  test('base URL and model are required', () => {
    expect(() => createEmbedder({ kind: 'openai-compatible', model: 'm' })).toThrow(/KNOWLEDGE_EMBEDDER_BASE_URL/);
    expect(() => createEmbedder({ kind: 'openai-compatible', baseUrl: 'http://x' })).toThrow(/KNOWLEDGE_EMBEDDER_MODEL/);
  });
});
