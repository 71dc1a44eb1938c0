import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { failure, fakeRouterTokenizerJson } from '../../support/token-helpers';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { HubError, TokenizationUnavailableError } from '../../../server/errors';
import { CHAT_COUNT_CACHE_SIZE, chatCacheKey, createTokenCounter, loadLocalTokenizer, sortedKeyJson } from '../../../server/llm/tokens';
import { chargeTokens, joinRecords, piecesMatch, recordBoundary } from '../../../server/llm/tokens-records';
import type { ChatMessage, RouterClient, TokenizeResult } from '../../../server/llm/types';
import { fakeApplyTemplate, fakeTokenize } from '../../support/fake-router';

// ------------------------------------------------------------------ a stub RouterClient

type TokenizeBody = Parameters<RouterClient['tokenize']>[0];

interface StubOptions {
  inputTokens?: (req: { messages: ChatMessage[] }, opts?: { signal?: AbortSignal }) => Promise<number | null>;
  applyTemplate?: (body: { messages: ChatMessage[] }) => Promise<string>;
  tokenize?: (body: TokenizeBody) => Promise<TokenizeResult>;
}

const utf8 = new TextEncoder();

/** Tokenizes like the fake router: pieces from fakeTokenize, as bytes. */
async function fakeTokenizeResult(body: TokenizeBody): Promise<TokenizeResult> {
  const pieces = fakeTokenize(body.content);
  return body.with_pieces ? { count: pieces.length, pieces: pieces.map((p) => utf8.encode(p)) } : { count: pieces.length };
}

function stubRouter(opts: StubOptions = {}) {
  // Like the real client: a null (404) answer is remembered and reported by hasInputTokens().
  let absent = false;
  const answer = opts.inputTokens ?? (async (req: { messages: ChatMessage[] }) => fakeTokenize(fakeApplyTemplate(req.messages)).length);
  const inputTokens = jest.fn(async (req: { messages: ChatMessage[] }, o?: { signal?: AbortSignal }) => {
    const n = await answer(req, o);
    if (n === null) absent = true;
    return n;
  });
  const applyTemplate = jest.fn(opts.applyTemplate ?? (async (body) => fakeApplyTemplate(body.messages)));
  const tokenize = jest.fn(opts.tokenize ?? fakeTokenizeResult);
  const unused = () => {
    throw new Error('not used by the token counter');
  };
  const router = {
    chat: unused, chatStream: unused, listModels: unused, slotState: unused, close: unused,
    inputTokens, applyTemplate, tokenize, hasInputTokens: () => !absent,
  } as unknown as RouterClient;
  return { router, inputTokens, applyTemplate, tokenize };
}

const MODEL = 'gemma-4-12b';
const msgs = (q: string): ChatMessage[] => [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: q }];


// ------------------------------------------------------------------ countChat

describe('countChat', () => {
  test('uses /v1/chat/completions/input_tokens when the router has it', async () => {
    const stub = stubRouter();
    const counter = createTokenCounter({ router: stub.router });
    const n = await counter.countChat({ model: MODEL, messages: msgs('Hi there') });
    expect(n).toBe(fakeTokenize(fakeApplyTemplate(msgs('Hi there'))).length);
    expect(stub.inputTokens).toHaveBeenCalledTimes(1);
    expect(stub.inputTokens.mock.calls[0][0]).toEqual({ model: MODEL, messages: msgs('Hi there') });
    expect(stub.applyTemplate).not.toHaveBeenCalled();
    expect(counter.stats()).toMatchObject({ http_requests: 1, chat_counts_performed: 1, chat_count_mode: 'input_tokens', cached_prompt_counts: 1 });
  });

  test('input_tokens missing (null) → /apply-template then /tokenize with parse_special, and the fallback is remembered', async () => {
    const stub = stubRouter({ inputTokens: async () => null });
    const counter = createTokenCounter({ router: stub.router });
    const tools = [{ type: 'function', function: { name: 'f' } }];
    const n = await counter.countChat({ model: MODEL, messages: msgs('Hi'), tools, tool_choice: 'auto', chat_template_kwargs: { x: 1 } });
    expect(n).toBe(fakeTokenize(fakeApplyTemplate(msgs('Hi'))).length);
    expect(stub.applyTemplate.mock.calls[0][0]).toEqual({ model: MODEL, messages: msgs('Hi'), tools, tool_choice: 'auto' });
    expect(stub.tokenize.mock.calls[0][0]).toEqual({ model: MODEL, content: fakeApplyTemplate(msgs('Hi')), add_special: false, parse_special: true });
    expect(counter.stats()).toMatchObject({ http_requests: 3, chat_count_mode: 'template' });

    // A second counter on the same router client goes straight to the template path.
    const second = createTokenCounter({ router: stub.router });
    await second.countChat({ model: MODEL, messages: msgs('Other') });
    expect(stub.inputTokens).toHaveBeenCalledTimes(1);
    expect(second.stats()).toMatchObject({ http_requests: 2, chat_count_mode: 'template' });
  });

  test('a prompt differing only in sampling/output fields is a cache hit', async () => {
    const stub = stubRouter();
    const counter = createTokenCounter({ router: stub.router });
    const base = { model: MODEL, messages: msgs('Same prompt') };
    const a = await counter.countChat({ ...base, temperature: 0, max_tokens: 100 } as never);
    const b = await counter.countChat({ ...base, temperature: 0.7, max_tokens: 2048, response_format: { type: 'json_object' } } as never);
    expect(b).toBe(a);
    expect(stub.inputTokens).toHaveBeenCalledTimes(1);
    expect(counter.stats()).toMatchObject({ http_requests: 1, chat_counts_performed: 1, chat_cache_hits: 1, cached_prompt_counts: 1 });
  });

  test('the cache key ignores key order but not content (tools, tool_choice, kwargs, model)', () => {
    const k = chatCacheKey({ model: MODEL, messages: [{ role: 'user', content: 'x' }], chat_template_kwargs: { a: 1, b: 2 } });
    expect(chatCacheKey({ chat_template_kwargs: { b: 2, a: 1 }, messages: [{ content: 'x', role: 'user' }], model: MODEL })).toBe(k);
    expect(chatCacheKey({ model: MODEL, messages: [{ role: 'user', content: 'x' }], chat_template_kwargs: { a: 1, b: 3 } })).not.toBe(k);
    expect(chatCacheKey({ model: 'other', messages: [{ role: 'user', content: 'x' }], chat_template_kwargs: { a: 1, b: 2 } })).not.toBe(k);
    expect(chatCacheKey({ model: MODEL, messages: [{ role: 'user', content: 'x' }], chat_template_kwargs: { a: 1, b: 2 }, tool_choice: 'none' })).not.toBe(k);
    expect(sortedKeyJson({ b: [{ d: 1, c: 2 }], a: null, u: undefined })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
    expect(sortedKeyJson(JSON.parse('{"__proto__":{"z":1,"y":2}}'))).toBe('{"__proto__":{"y":2,"z":1}}');
  });

  test('the cache is an LRU of 32 entries', async () => {
    const stub = stubRouter();
    const counter = createTokenCounter({ router: stub.router });
    const req = (i: number) => ({ model: MODEL, messages: msgs(`question ${i}`) });
    for (let i = 0; i < CHAT_COUNT_CACHE_SIZE; i++) await counter.countChat(req(i));
    expect(CHAT_COUNT_CACHE_SIZE).toBe(32);
    await counter.countChat(req(0)); // refreshes 0: now 1 is the eldest
    await counter.countChat(req(32)); // evicts 1
    expect(counter.stats().cached_prompt_counts).toBe(32);
    const calls = stub.inputTokens.mock.calls.length;
    await counter.countChat(req(0));
    expect(stub.inputTokens.mock.calls.length).toBe(calls); // still cached
    await counter.countChat(req(1));
    expect(stub.inputTokens.mock.calls.length).toBe(calls + 1); // was evicted
    expect(counter.stats()).toMatchObject({ chat_counts_performed: 34, chat_cache_hits: 2, cached_prompt_counts: 32 });
  });

  test('concurrent counts of one prompt share a single router call', async () => {
    const stub = stubRouter();
    const counter = createTokenCounter({ router: stub.router });
    const req = { model: MODEL, messages: msgs('together') };
    const [a, b] = await Promise.all([counter.countChat(req), counter.countChat(req)]);
    expect(a).toBe(b);
    expect(stub.inputTokens).toHaveBeenCalledTimes(1);
  });

  test('a router failure is tokenization_unavailable from llama-router, never an estimate, and is not cached', async () => {
    let fail = true;
    const stub = stubRouter({
      inputTokens: async () => {
        if (fail) throw new HubError('router_unreachable', 'Cannot reach the model router (ECONNREFUSED).');
        return 7;
      },
    });
    const counter = createTokenCounter({ router: stub.router });
    const req = { model: MODEL, messages: msgs('x') };
    const err = await failure(counter.countChat(req));
    expect(err.code).toBe('tokenization_unavailable');
    expect(err.status).toBe(503);
    expect(err.extra.source).toBe('llama-router');
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(stub.inputTokens).toHaveBeenCalledTimes(1); // no retry on top of the client's
    fail = false;
    expect(await counter.countChat(req)).toBe(7);
  });

  test('a template-path failure and a plain Error are tokenization_unavailable too', async () => {
    const stub = stubRouter({ inputTokens: async () => null, tokenize: async () => { throw new TypeError('boom'); } });
    const err = await failure(createTokenCounter({ router: stub.router }).countChat({ model: 'm-tpl-fail', messages: msgs('x') }));
    expect(err).toMatchObject({ code: 'tokenization_unavailable', extra: { source: 'llama-router' } });
  });

  test('an aborted signal rejects with AbortError (not a tokenizer failure) and makes no call', async () => {
    const stub = stubRouter();
    const ac = new AbortController();
    ac.abort();
    const counter = createTokenCounter({ router: stub.router }, { signal: ac.signal });
    await expect(counter.countChat({ model: MODEL, messages: msgs('x') })).rejects.toMatchObject({ name: 'AbortError' });
    await expect(counter.count(MODEL, 'x')).rejects.toMatchObject({ name: 'AbortError' });
    await expect(counter.countRecords(MODEL, ['x'])).rejects.toMatchObject({ name: 'AbortError' });
    expect(stub.inputTokens).not.toHaveBeenCalled();
    expect(stub.tokenize).not.toHaveBeenCalled();
  });

  test('an abort during the router call passes the signal and rejects with AbortError', async () => {
    const ac = new AbortController();
    const stub = stubRouter({
      inputTokens: jest.fn((_req, opts?: { signal?: AbortSignal }) => new Promise<number>((_res, rej) => {
        opts?.signal?.addEventListener('abort', () => rej(new TokenizationUnavailableError('llama-router', 'cut')));
      })) as never,
    });
    const counter = createTokenCounter({ router: stub.router }, { signal: ac.signal });
    const p = counter.countChat({ model: MODEL, messages: msgs('slow') });
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(counter.stats().cached_prompt_counts).toBe(0);
  });
});

// ------------------------------------------------------------------ count

describe('count', () => {
  test('plain text goes to /tokenize without special tokens; empty text is 0 without a call', async () => {
    const stub = stubRouter();
    const counter = createTokenCounter({ router: stub.router });
    expect(await counter.count(MODEL, 'Hello world!')).toBe(3);
    expect(stub.tokenize.mock.calls[0][0]).toEqual({ model: MODEL, content: 'Hello world!', add_special: false });
    expect(await counter.count(MODEL, '')).toBe(0);
    expect(stub.tokenize).toHaveBeenCalledTimes(1);
    expect(counter.stats().http_requests).toBe(1);
  });
});

// ------------------------------------------------------------------ countRecords

const B = '\n\x1eMAH-CONTEXT-RECORD-BOUNDARY\x1e\n';

describe('record boundary and byte ranges', () => {
  test('the boundary gets -1, -2 … until no record contains it', () => {
    expect(recordBoundary(['a', 'b'])).toBe(B);
    expect(recordBoundary([`x${B}y`])).toBe('\n\x1eMAH-CONTEXT-RECORD-BOUNDARY-1\x1e\n');
    expect(recordBoundary([B, '\n\x1eMAH-CONTEXT-RECORD-BOUNDARY-1\x1e\n'])).toBe('\n\x1eMAH-CONTEXT-RECORD-BOUNDARY-2\x1e\n');
  });

  test('ranges are UTF-8 byte ranges', () => {
    const j = joinRecords(['é', '', '日本']);
    const b = Buffer.byteLength(B);
    expect(j.content).toBe(`é${B}${B}日本`);
    expect(j.ranges).toEqual([{ start: 0, end: 2 }, { start: 2 + b, end: 2 + b }, { start: 2 + 2 * b, end: 2 + 2 * b + 6 }]);
  });

  test('piecesMatch demands exactly the content bytes', () => {
    const c = utf8.encode('abc');
    expect(piecesMatch([utf8.encode('a'), utf8.encode('bc')], c)).toBe(true);
    expect(piecesMatch([utf8.encode('a'), utf8.encode('b')], c)).toBe(false);
    expect(piecesMatch([utf8.encode('abcd')], c)).toBe(false);
    expect(piecesMatch([utf8.encode('a'), utf8.encode('bd')], c)).toBe(false);
  });

  test.each([
    ['one token per record, boundary tokens charged to nobody', [[0, 2], [2, 4], [4, 6]], [{ start: 0, end: 2 }, { start: 4, end: 6 }], [1, 1]],
    ['a token spanning the boundary counts for both records', [[0, 6]], [{ start: 0, end: 2 }, { start: 4, end: 6 }], [1, 1]],
    ['a token overlapping one byte of a record counts', [[0, 1], [1, 3], [3, 6]], [{ start: 0, end: 2 }, { start: 4, end: 6 }], [2, 1]],
    ['a token spanning three records counts for all three', [[0, 10]], [{ start: 0, end: 2 }, { start: 4, end: 5 }, { start: 7, end: 10 }], [1, 1, 1]],
    ['an empty record is never charged', [[0, 4]], [{ start: 0, end: 1 }, { start: 2, end: 2 }, { start: 3, end: 4 }], [1, 0, 1]],
  ])('%s', (_name, spans, ranges, expected) => {
    const pieces = (spans as number[][]).map(([s, e]) => new Uint8Array(e - s));
    expect(chargeTokens(pieces, ranges as never)).toEqual(expected);
  });
});

describe('countRecords', () => {
  test('one /tokenize call with pieces, records joined by the boundary, costs ≥ 1', async () => {
    const stub = stubRouter();
    const counter = createTokenCounter({ router: stub.router });
    const texts = ['Medication: lisinopril 10 mg', '', 'Allergy: penicillin'];
    const costs = await counter.countRecords(MODEL, texts);
    expect(stub.tokenize).toHaveBeenCalledTimes(1);
    expect(stub.tokenize.mock.calls[0][0]).toEqual({ model: MODEL, content: texts.join(B), add_special: false, parse_special: false, with_pieces: true });
    expect(costs).toEqual([fakeTokenize(texts[0]).length, 1, fakeTokenize(texts[2]).length]);
    expect(counter.stats()).toMatchObject({ record_cost_calls: 1, http_requests: 1 });
  });

  test('no texts → [] without a call', async () => {
    const stub = stubRouter();
    const counter = createTokenCounter({ router: stub.router });
    expect(await counter.countRecords(MODEL, [])).toEqual([]);
    expect(stub.tokenize).not.toHaveBeenCalled();
    expect(counter.stats().record_cost_calls).toBe(0);
  });

  test('a token spanning a boundary and multi-byte UTF-8 pieces are charged by byte overlap', async () => {
    const texts = ['ab', 'é日'];
    const content = Buffer.from(texts.join(B));
    // Pieces: "a", then "b" + the whole boundary + first byte of é (spans both records), then é's 2nd byte,
    // then 日 split into two byte-array pieces (as a router sends non-UTF-8 pieces).
    const cut = [1, 2 + Buffer.byteLength(B) + 1, 2 + Buffer.byteLength(B) + 2, 2 + Buffer.byteLength(B) + 3, content.length];
    const pieces = cut.map((end, i) => new Uint8Array(content.subarray(i === 0 ? 0 : cut[i - 1], end)));
    const stub = stubRouter({ tokenize: async () => ({ count: pieces.length, pieces }) });
    expect(await createTokenCounter({ router: stub.router }).countRecords(MODEL, texts)).toEqual([2, 4]);
  });

  test('a record containing the boundary gets the -1 boundary', async () => {
    const stub = stubRouter();
    const texts = [`quoted ${B} marker`, 'next'];
    const costs = await createTokenCounter({ router: stub.router }).countRecords(MODEL, texts);
    const b1 = '\n\x1eMAH-CONTEXT-RECORD-BOUNDARY-1\x1e\n';
    expect(stub.tokenize.mock.calls[0][0].content).toBe(texts.join(b1));
    expect(costs[1]).toBe(1);
    expect(costs[0]).toBe(fakeTokenize(texts[0]).length);
  });

  test.each([
    ['pieces that do not concatenate to the content', async (b: TokenizeBody) => ({ count: 1, pieces: [utf8.encode(`${b.content}!`)] })],
    ['a body without pieces', async () => ({ count: 3 })],
  ])('%s → tokenization_unavailable', async (_name, tokenize) => {
    const stub = stubRouter({ tokenize: tokenize as StubOptions['tokenize'] });
    const err = await failure(createTokenCounter({ router: stub.router }).countRecords(MODEL, ['a', 'b']));
    expect(err).toMatchObject({ code: 'tokenization_unavailable', status: 503, extra: { source: 'llama-router' } });
  });
});

// ------------------------------------------------------------------ local tokenizer.json


const PARITY_TEXTS = [
  '', 'x', 'Hello world!', '  leading and trailing  ', 'tab\tnew\nline\r\nend',
  '[1] (2026-01-01) Medication: lisinopril 10 mg', 'Finding — Weight (kg), WT): 41.0 kg',
  'héllo wörld — naïve café', '日本語のテキスト', 'emoji 😀👍🏽 mixed', 'NEL\u0085and\ufeffBOM and\u00a0nbsp\u2028ls\u3000ideo',
  `record with the ${B} marker inside`, 'x'.repeat(5000), ' '.repeat(40),
];

describe('local tokenizer.json (@huggingface/tokenizers)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mah-tok-'));
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(fakeRouterTokenizerJson({ '[UNK]': 0, Hello: 1, ' world': 2 })));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('its pre-tokens are exactly the fake router pieces, so counts are equal', () => {
    const tokenizer = new Tokenizer(fakeRouterTokenizerJson({ '[UNK]': 0, Hello: 1, ' world': 2 }), {});
    const local = loadLocalTokenizer(join(dir, 'tokenizer.json'));
    for (const text of PARITY_TEXTS) {
      expect(tokenizer.pre_tokenizer?.pre_tokenize(text) ?? []).toEqual(fakeTokenize(text));
      expect(local.count(text)).toBe(fakeTokenize(text).length);
    }
  });

  test('the counter uses it for count and countRecords without any router call', async () => {
    const stub = stubRouter();
    const local = loadLocalTokenizer(join(dir, 'tokenizer.json'), { models: [MODEL] });
    const counter = createTokenCounter({ router: stub.router, local });
    expect(await counter.count(MODEL, 'Hello world!')).toBe(3);
    expect(await counter.countRecords(MODEL, ['Allergy: penicillin', ''])).toEqual([3, 1]);
    expect(stub.tokenize).not.toHaveBeenCalled();
    // Chat counts stay on the router: a tokenizer.json carries no chat template.
    await counter.countChat({ model: MODEL, messages: msgs('x') });
    expect(stub.inputTokens).toHaveBeenCalledTimes(1);
    // Another model is not covered by this tokenizer.
    await counter.count('qwen3.5-9b', 'Hello');
    expect(stub.tokenize).toHaveBeenCalledTimes(1);
    expect(counter.stats()).toMatchObject({ http_requests: 2, record_cost_calls: 1, chat_count_mode: 'input_tokens' });
  });

  test('with a chat renderer, chat counts are local', async () => {
    const stub = stubRouter();
    const local = loadLocalTokenizer(join(dir, 'tokenizer.json'), { renderChat: (req) => fakeApplyTemplate(req.messages) });
    const counter = createTokenCounter({ router: stub.router, local });
    expect(await counter.countChat({ model: MODEL, messages: msgs('Hi there') })).toBe(fakeTokenize(fakeApplyTemplate(msgs('Hi there'))).length);
    expect(stub.inputTokens).not.toHaveBeenCalled();
    expect(counter.stats()).toMatchObject({ http_requests: 0, chat_count_mode: 'local', chat_counts_performed: 1 });
  });

  test('a local failure is tokenization_unavailable naming the local tokenizer', async () => {
    const stub = stubRouter();
    const local = { models: [], count: () => { throw new Error('bad'); } };
    const err = await failure(createTokenCounter({ router: stub.router, local }).count(MODEL, 'x'));
    expect(err).toMatchObject({ code: 'tokenization_unavailable', extra: { source: 'local-tokenizer' } });
  });

  test('a bad file fails fast with the path in the message', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"model": {"type": "NoSuchModel"}}');
    expect(() => loadLocalTokenizer(bad)).toThrow(bad);
    expect(() => loadLocalTokenizer(join(dir, 'missing.json'))).toThrow(/missing\.json/);
  });
});
