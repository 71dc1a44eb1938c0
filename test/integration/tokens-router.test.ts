/** Exact token counting against the fake llama.cpp router over loopback, through the real router client. */
import { failure, fakeRouterTokenizerJson } from '../support/token-helpers';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRouterClient } from '../../server/llm/router-client';
import { createTokenCounter, loadLocalTokenizer } from '../../server/llm/tokens';
import type { ChatMessage, RouterClient } from '../../server/llm/types';
import { FakeRouter, fakeTokenize } from '../support/fake-router';

const MODEL = 'gemma-4-12b';
const INPUT_TOKENS = '/v1/chat/completions/input_tokens';
const B = '\n\x1eMAH-CONTEXT-RECORD-BOUNDARY\x1e\n';

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'You answer from the chart. Cite records as [N].' },
  { role: 'user', content: 'Patient records (most recent first):\n[1] (2026-01-01) Medication: lisinopril 10 mg\n[2] Allergy: pénicilline — anaphylaxis 😷' },
  { role: 'assistant', content: 'Noted.' },
  { role: 'user', content: 'What is the current blood-pressure medication?' },
];

function client(baseUrl: string): RouterClient {
  return createRouterClient({ baseUrl, maxConcurrency: 1, maxQueue: 8, connectTimeoutMs: 2000, idleTimeoutMs: 10000, discoveryTimeoutMs: 2000 });
}

async function start(opts: ConstructorParameters<typeof FakeRouter>[0]): Promise<{ fake: FakeRouter; router: RouterClient; stop: () => Promise<void> }> {
  const fake = new FakeRouter({ models: [MODEL], ...opts });
  const router = client(await fake.start());
  return { fake, router, stop: async () => { await router.close(); await fake.stop(); } };
}

const paths = (fake: FakeRouter) => fake.requests.map((r) => r.path);


describe('chat counts', () => {
  test('input_tokens and apply-template + tokenize give the same count for the same messages', async () => {
    const withInput = await start({});
    const without = await start({ inputTokens: false });
    try {
      const a = createTokenCounter({ router: withInput.router });
      const b = createTokenCounter({ router: without.router });
      const na = await a.countChat({ model: MODEL, messages: MESSAGES });
      const nb = await b.countChat({ model: MODEL, messages: MESSAGES });
      expect(na).toBeGreaterThan(20);
      expect(na).toBe(nb);
      expect(paths(withInput.fake)).toEqual([INPUT_TOKENS]);
      expect(paths(without.fake)).toEqual([INPUT_TOKENS, '/apply-template', '/tokenize']);
      const tok = without.fake.requests[2].body;
      expect(tok).toMatchObject({ model: MODEL, add_special: false, parse_special: true });
      expect(a.stats()).toMatchObject({ chat_count_mode: 'input_tokens', http_requests: 1 });
      expect(b.stats()).toMatchObject({ chat_count_mode: 'template', http_requests: 3 });
    } finally {
      await withInput.stop();
      await without.stop();
    }
  });

  test('without input_tokens, a second counter on the same router client never asks for it again', async () => {
    const r = await start({ inputTokens: false });
    try {
      await createTokenCounter({ router: r.router }).countChat({ model: MODEL, messages: MESSAGES });
      const second = createTokenCounter({ router: r.router });
      await second.countChat({ model: MODEL, messages: MESSAGES.slice(0, 2) });
      expect(paths(r.fake).filter((p) => p === INPUT_TOKENS)).toHaveLength(1);
      expect(paths(r.fake).filter((p) => p === '/apply-template')).toHaveLength(2);
      expect(second.stats()).toMatchObject({ chat_count_mode: 'template', http_requests: 2 });
    } finally {
      await r.stop();
    }
  });

  test('dispatch reuses the selector\'s count: the same prompt with other sampling fields makes no request', async () => {
    const r = await start({});
    try {
      const counter = createTokenCounter({ router: r.router });
      const first = await counter.countChat({ model: MODEL, messages: MESSAGES, temperature: 0.2 } as never);
      const again = await counter.countChat({ model: MODEL, messages: MESSAGES, temperature: 0, max_tokens: 512, stream: true } as never);
      expect(again).toBe(first);
      expect(r.fake.requests).toHaveLength(1);
      expect(r.fake.requests[0].body).not.toHaveProperty('temperature');
      expect(counter.stats()).toMatchObject({ chat_counts_performed: 1, chat_cache_hits: 1, cached_prompt_counts: 1 });
    } finally {
      await r.stop();
    }
  });
});

describe('record costs', () => {
  test('500 records are costed in exactly ONE /tokenize request, each as its own token count', async () => {
    const r = await start({});
    try {
      const texts = Array.from({ length: 500 }, (_, i) =>
        i % 50 === 0 ? '' : `(2026-01-${String((i % 28) + 1).padStart(2, '0')}) Finding — Weight (kg): ${40 + (i % 9)}.5 kg ünïcødé ${'日本'.repeat(i % 3)}`);
      const counter = createTokenCounter({ router: r.router });
      const costs = await counter.countRecords(MODEL, texts);
      expect(r.fake.requests).toHaveLength(1);
      expect(r.fake.requests[0].path).toBe('/tokenize');
      expect(r.fake.requests[0].body).toEqual({ model: MODEL, content: texts.join(B), add_special: false, parse_special: false, with_pieces: true });
      expect(costs).toEqual(texts.map((t) => Math.max(1, fakeTokenize(t).length)));
      expect(counter.stats()).toMatchObject({ record_cost_calls: 1, http_requests: 1 });
    } finally {
      await r.stop();
    }
  });

  test('plain count is one /tokenize without special tokens', async () => {
    const r = await start({});
    try {
      expect(await createTokenCounter({ router: r.router }).count(MODEL, 'Hello world! <|im_start|>')).toBe(fakeTokenize('Hello world! <|im_start|>').length);
      expect(r.fake.requests[0].body).toEqual({ model: MODEL, content: 'Hello world! <|im_start|>', add_special: false });
    } finally {
      await r.stop();
    }
  });
});

describe('failures are tokenization_unavailable, never estimates', () => {
  test('tokenize disabled (404) → tokenization_unavailable from llama-router', async () => {
    const r = await start({ tokenize: false, inputTokens: false });
    try {
      const counter = createTokenCounter({ router: r.router });
      for (const p of [counter.countRecords(MODEL, ['a', 'b']), counter.count(MODEL, 'a'), counter.countChat({ model: MODEL, messages: MESSAGES })]) {
        const err = await failure(p);
        expect(err).toMatchObject({ code: 'tokenization_unavailable', status: 503, extra: { source: 'llama-router' } });
      }
      expect(counter.stats().cached_prompt_counts).toBe(0);
    } finally {
      await r.stop();
    }
  });

  test('an unreachable router → tokenization_unavailable', async () => {
    const fake = new FakeRouter({ models: [MODEL] });
    const router = client(await fake.start());
    await fake.stop();
    try {
      const err = await failure(createTokenCounter({ router }).countChat({ model: MODEL, messages: MESSAGES }));
      expect(err).toMatchObject({ code: 'tokenization_unavailable', extra: { source: 'llama-router' } });
    } finally {
      await router.close();
    }
  });

  test('a hung router call is abandoned on abort with AbortError', async () => {
    const r = await start({});
    try {
      r.fake.script({ match: { path: INPUT_TOKENS }, fault: 'hang' });
      const ac = new AbortController();
      const p = createTokenCounter({ router: r.router }, { signal: ac.signal }).countChat({ model: MODEL, messages: MESSAGES });
      setTimeout(() => ac.abort(), 50);
      await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      await r.stop();
    }
  });
});


const PARITY_TEXTS = [
  'x', 'Hello world!', '  leading and trailing  ', 'tab\tnew\nline\r\nend', '[1] (2026-01-01) Medication: lisinopril 10 mg',
  'Finding — Weight (kg), WT): 41.0 kg', 'héllo wörld — naïve café', '日本語のテキスト', 'emoji 😀👍🏽 mixed',
  'NEL\u0085and\ufeffBOM and\u00a0nbsp\u2028ls\u3000ideo', `quoted ${B} boundary`, 'x'.repeat(3000), ' '.repeat(40),
];

describe('local tokenizer.json parity with the router', () => {
  let dir: string;
  let r: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mah-tok-int-'));
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(fakeRouterTokenizerJson()));
    r = await start({});
  });
  afterAll(async () => {
    await r.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test.each(PARITY_TEXTS.map((t) => [JSON.stringify(t).slice(0, 40), t]))('count %s', async (_label, text) => {
    const local = loadLocalTokenizer(join(dir, 'tokenizer.json'));
    const viaRouter = await createTokenCounter({ router: r.router }).count(MODEL, text);
    expect(local.count(text)).toBe(viaRouter);
  });

  test('record costs: local per-record counts equal the router\'s batched byte-range costs', async () => {
    const local = loadLocalTokenizer(join(dir, 'tokenizer.json'));
    const before = r.fake.requests.length;
    const viaLocal = await createTokenCounter({ router: r.router, local }).countRecords(MODEL, [...PARITY_TEXTS, '']);
    expect(r.fake.requests.length).toBe(before); // no router call
    const viaRouter = await createTokenCounter({ router: r.router }).countRecords(MODEL, [...PARITY_TEXTS, '']);
    expect(viaLocal).toEqual(viaRouter);
  });
});
