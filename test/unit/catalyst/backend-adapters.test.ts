/** The discovery guard against a hung backend, and chunk re-framing for a backend without its own chunks. */
import { advertisedModels, POSITIVE_TTL_MS } from '../../../server/catalyst/advertised-models';
import { inventoryWithin } from '../../../server/catalyst/discovery';
import { reframedChunks } from '../../../server/llm/reframe-stream';
import type { ModelInventory, RouterClient, StreamPiece } from '../../../server/llm/types';

function stubRouter(parts: Partial<RouterClient>): RouterClient {
  return parts as RouterClient;
}

describe('inventoryWithin', () => {
  test('a backend whose inventory never answers (and ignores the signal) is reported unreachable', async () => {
    const router = stubRouter({ listModels: () => new Promise<ModelInventory>(() => undefined) });
    await expect(inventoryWithin(router, 20)).resolves.toEqual({ reachable: false, ids: [], entries: {} });
  });

  test('a backend that throws is unreachable, never an error', async () => {
    const router = stubRouter({ listModels: () => Promise.reject(new Error('socket hang up')) });
    await expect(inventoryWithin(router, 1000)).resolves.toMatchObject({ reachable: false });
  });

  test('an answer in time is passed through; the signal given to the backend is the bounded one', async () => {
    let seen: AbortSignal | undefined;
    const inv: ModelInventory = { reachable: true, ids: ['m'], entries: { m: {} } };
    const router = stubRouter({ listModels: (opts) => { seen = opts?.signal; return Promise.resolve(inv); } });
    await expect(inventoryWithin(router, 1000)).resolves.toBe(inv);
    expect(seen).toBeInstanceOf(AbortSignal);
  });

  test('a caller that already gave up gets "unreachable" at once', async () => {
    const router = stubRouter({ listModels: () => new Promise<ModelInventory>(() => undefined) });
    const ac = new AbortController();
    ac.abort();
    await expect(inventoryWithin(router, 60_000, ac.signal)).resolves.toMatchObject({ reachable: false });
  });
});

describe('reframedChunks', () => {
  const pieces: StreamPiece[] = [
    { kind: 'delta', content: 'SEL' },
    { kind: 'delta', content: 'ECT' },
    { kind: 'done', result: { content: 'SELECT', finishReason: 'length', usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }, model: 'm', queueWaitMs: 0, routerMs: 1 } },
  ];
  const router = stubRouter({ async *chatStream() { yield* pieces; } });

  test.each([true, false])('include_usage %p: role, one chunk per delta, finish, [usage], [DONE]', async (includeUsage) => {
    const out: string[] = [];
    for await (const c of reframedChunks(router, { model: 'm', messages: [] }, {}, includeUsage)) out.push(c);
    expect(out[out.length - 1]).toBe('[DONE]');
    const chunks = out.slice(0, -1).map((c) => JSON.parse(c));
    expect(chunks.map((c) => c.choices[0]?.delta ?? null)).toEqual([{ role: 'assistant', content: null }, { content: 'SEL' }, { content: 'ECT' }, {}, ...(includeUsage ? [null] : [])]);
    expect(chunks[3].choices[0].finish_reason).toBe('length');
    if (includeUsage) expect(chunks[4]).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'm')).toBe(true);
  });
});

describe('advertisedModels', () => {
  const inv = (ids: string[]): ModelInventory => ({ reachable: true, ids, entries: {} });

  test('a fresh positive answer is remembered; a miss, a stale listing and an unreachable backend are asked live', async () => {
    let clock = 0;
    let listings = 0;
    let current = inv(['a']);
    const router = stubRouter({ listModels: () => { listings++; return Promise.resolve(current); } });
    const models = advertisedModels(router, 1000, () => clock);
    const signal = new AbortController().signal;
    await expect(models.check('a', signal)).resolves.toMatchObject({ advertised: true });
    await expect(models.check('a', signal)).resolves.toEqual({ advertised: true, inventory: null });
    expect(listings).toBe(1);
    // An id not in the remembered listing is never refused from memory: the backend is asked.
    current = inv(['a', 'b']);
    await expect(models.check('b', signal)).resolves.toMatchObject({ advertised: true });
    expect(listings).toBe(2);
    await expect(models.check('zzz', signal)).resolves.toMatchObject({ advertised: false });
    expect(listings).toBe(3);
    // Past the TTL even a known id is checked again, and a removed one is then refused.
    clock += POSITIVE_TTL_MS;
    current = inv(['b']);
    await expect(models.check('a', signal)).resolves.toMatchObject({ advertised: false });
    await expect(models.check('b', signal)).resolves.toEqual({ advertised: true, inventory: null });
    // An unreachable backend is never remembered: every later call asks again.
    clock += POSITIVE_TTL_MS;
    current = { reachable: false, ids: [], entries: {} };
    await expect(models.check('b', signal)).resolves.toMatchObject({ advertised: false, inventory: { reachable: false } });
    await expect(models.check('b', signal)).resolves.toMatchObject({ advertised: false });
    expect(listings).toBe(6);
  });

  test('past half its TTL a known id still answers from memory while one background refresh renews the listing', async () => {
    let clock = 0;
    let listings = 0;
    let current = inv(['a']);
    let release: () => void = () => undefined;
    const router = stubRouter({
      listModels: () => {
        listings++;
        if (listings === 1) return Promise.resolve(current);
        return new Promise<ModelInventory>((resolve) => { release = () => resolve(current); });
      },
    });
    const models = advertisedModels(router, 1000, () => clock);
    const signal = new AbortController().signal;
    await models.check('a', signal);
    clock = POSITIVE_TTL_MS / 2;
    await expect(models.check('a', signal)).resolves.toEqual({ advertised: true, inventory: null });
    await expect(models.check('a', signal)).resolves.toEqual({ advertised: true, inventory: null });
    await new Promise((r) => setImmediate(r)); // the refresh starts once the calling request has gone out
    expect(listings).toBe(2); // one refresh in flight, not one per call
    current = inv(['b']);
    release();
    await new Promise((r) => setImmediate(r));
    // The renewed listing (taken at TTL/2) now answers: 'a' is gone, and is asked live; 'b' answers from memory.
    clock = POSITIVE_TTL_MS * 0.9;
    await expect(models.check('b', signal)).resolves.toEqual({ advertised: true, inventory: null });
    expect(listings).toBe(2);
    release = () => undefined;
    const live = models.check('a', signal);
    release();
    await expect(live).resolves.toMatchObject({ advertised: false });
    expect(listings).toBe(3);
  });
});
