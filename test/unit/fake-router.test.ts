/** Tests of the fake llama.cpp router itself (test/support/fake-router.ts), with plain fetch against 127.0.0.1. */
import { FakeRouter, fakeApplyTemplate, fakeTokenize } from '../support/fake-router';

const MSGS = [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Hi there, aspirin?' }];

async function post(base: string, path: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) }, body: typeof body === 'string' ? body : JSON.stringify(body), signal: init.signal });
}
/** Response.json() is typed `unknown` here; tests read bodies loosely. */
const J = async (r: Response | Promise<Response>): Promise<any> => (await r).json();
const chat = (base: string, body: Record<string, unknown>, init?: RequestInit) => post(base, '/v1/chat/completions', { model: 'm1', messages: MSGS, ...body }, init);

/** SSE events of a finished stream body: data payloads (parsed unless [DONE]) and comment lines. */
function sse(text: string): { data: any[]; comments: number } {
  const data: any[] = [];
  let comments = 0;
  for (const ev of text.split('\n\n').filter(Boolean)) {
    if (ev.startsWith(':')) comments++;
    else if (ev.startsWith('data: ')) data.push(ev === 'data: [DONE]' ? '[DONE]' : JSON.parse(ev.slice(6)));
  }
  return { data, comments };
}

async function until(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('FakeRouter', () => {
  const fake = new FakeRouter({ models: ['m1', { id: 'm2', status: 'unloaded' }, { id: 'small', nCtx: 8 }] });
  let base = '';
  beforeAll(async () => { base = await fake.start(); });
  afterAll(() => fake.stop());
  beforeEach(() => fake.reset());

  test('fake tokenizer and template are deterministic and lossless', () => {
    const text = 'Hello world! <|im_start|>\n  mg/dL  ÄÖ 😀 x';
    expect(fakeTokenize(text).join('')).toBe(text);
    expect(fakeTokenize('Hello world!')).toEqual(['Hello', ' world', '!']);
    expect(fakeApplyTemplate([{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Hi there' }]))
      .toBe('<<SYS>>\nYou are terse.\n<</SYS>>\n\n[INST] Hi there [/INST]');
    expect(fakeApplyTemplate([{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }])).toBe('[INST] ab [/INST]');
  });

  test('health, headers, router-mode /v1/models and /models', async () => {
    const h = await fetch(`${base}/health`);
    expect(h.status).toBe(200);
    expect(await J(h)).toEqual({ status: 'ok' });
    expect(h.headers.get('server')).toBe('llama.cpp');
    expect(h.headers.has('access-control-allow-origin')).toBe(true);
    const list = await J(fetch(`${base}/v1/models`));
    expect(list.object).toBe('list');
    expect(list.data.map((m: any) => [m.id, m.status.value])).toEqual([['m1', 'loaded'], ['m2', 'unloaded'], ['small', 'loaded']]);
    expect(list.data[0]).toMatchObject({ aliases: [], tags: [], object: 'model', owned_by: 'llamacpp', meta: { n_ctx: 4096 } });
    expect(typeof list.data[0].created).toBe('number');
    expect(list.data[0].status.args).toContain('--ctx-size');
    expect(typeof list.data[0].status.preset).toBe('string');
    expect(list.data[1].meta).toBeUndefined();
    expect((await J(fetch(`${base}/models`))).data).toHaveLength(3);
  });

  test('blocking chat has the llama.cpp shape; usage counts match input_tokens; prompt cache is reported', async () => {
    const r = await chat(base, {});
    expect(r.status).toBe(200);
    const j = await J(r);
    const n = fakeTokenize(fakeApplyTemplate(MSGS)).length;
    expect(j).toMatchObject({ object: 'chat.completion', model: 'm1', system_fingerprint: 'b0-unknown', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '{"answer":"","citations":[],"blocks":[]}' } }] });
    expect(j.id).toMatch(/^chatcmpl-[A-Za-z0-9]{32}$/);
    expect(j.usage).toEqual({ prompt_tokens: n, completion_tokens: fakeTokenize(j.choices[0].message.content).length, total_tokens: expect.any(Number), prompt_tokens_details: { cached_tokens: 0 } });
    expect(j.timings).toMatchObject({ cache_n: 0, prompt_n: n, predicted_n: j.usage.completion_tokens });
    const it = await J(post(base, '/v1/chat/completions/input_tokens', { model: 'm1', messages: MSGS }));
    expect(it).toEqual({ input_tokens: n, object: 'response.input_tokens' });
    const again = await J(chat(base, {}));
    expect(again.usage.prompt_tokens_details.cached_tokens).toBe(n - 1);
    expect(again.timings).toMatchObject({ cache_n: n - 1, prompt_n: 1 });
  });

  test('scripts match by contains, model, test and times; first match wins; default otherwise', async () => {
    fake.script(
      { match: { contains: 'aspirin' }, content: 'A1', times: 1 },
      { match: { model: 'm2' }, content: 'M2', usage: { prompt_tokens: 7, completion_tokens: 3 }, finishReason: 'length' },
      { match: { test: (req) => req.body?.temperature === 0.5 }, content: 'T' },
      { match: { contains: 'aspirin' }, content: 'A2' },
    );
    const get = async (body: Record<string, unknown>) => (await J(chat(base, body)));
    expect((await get({})).choices[0].message.content).toBe('A1');
    expect((await get({})).choices[0].message.content).toBe('A2');
    const m2 = await get({ model: 'm2' });
    expect(m2.choices[0]).toMatchObject({ message: { content: 'M2' }, finish_reason: 'length' });
    expect(m2.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    expect((await get({ temperature: 0.5 })).choices[0].message.content).toBe('T');
    expect((await get({ messages: [{ role: 'user', content: 'other' }] })).choices[0].message.content).toBe('{"answer":"","citations":[],"blocks":[]}');
    expect((await J(fetch(`${base}/v1/models`))).data[1].status.value).toBe('loaded'); // autoloaded by the chat
    expect(fake.chatRequests()).toHaveLength(5);
    expect(fake.chatRequests()[2].body.model).toBe('m2');
  });

  test('streaming framing: role chunk, content, finish delta {}, usage chunk only with include_usage, [DONE]', async () => {
    fake.script({ content: 'Hello streaming world' });
    const plain = sse(await (await chat(base, { stream: true })).text()).data;
    expect(plain[0].choices[0]).toEqual({ finish_reason: null, index: 0, delta: { role: 'assistant', content: null } });
    expect(plain[0]).toMatchObject({ object: 'chat.completion.chunk', model: 'm1', system_fingerprint: 'b0-unknown' });
    const finish = plain[plain.length - 2];
    expect(finish.choices[0]).toEqual({ finish_reason: 'stop', index: 0, delta: {} });
    expect(finish.timings).toBeDefined();
    expect(plain[plain.length - 1]).toBe('[DONE]');
    expect(plain.slice(1, -2).map((c) => c.choices[0].delta.content).join('')).toBe('Hello streaming world');
    expect(plain.some((c) => c !== '[DONE]' && c.usage)).toBe(false);

    const r = await chat(base, { stream: true, stream_options: { include_usage: true } });
    expect(r.headers.get('content-type')).toMatch(/text\/event-stream/);
    const withUsage = sse(await r.text()).data;
    const usage = withUsage[withUsage.length - 2];
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toMatchObject({ prompt_tokens: fakeTokenize(fakeApplyTemplate(MSGS)).length, completion_tokens: fakeTokenize('Hello streaming world').length });
    expect(usage.timings).toBeDefined();
    expect(withUsage[withUsage.length - 3].timings).toBeUndefined();
    expect(new Set(withUsage.slice(0, -1).map((c) => c.id)).size).toBe(1);
  });

  test('tool calls: message.tool_calls with finish_reason tool_calls (blocking) and one delta.tool_calls chunk (streaming)', async () => {
    fake.script({ toolCalls: [{ name: 'medical_expert', arguments: { query: 'Why?' }, id: 'call-1' }], times: 2 }, { toolCalls: [{ name: 'f', arguments: '{"bad' }] });
    const blocking = await J(chat(base, { tools: [] }));
    expect(blocking.choices[0]).toEqual({ finish_reason: 'tool_calls', index: 0, message: { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'medical_expert', arguments: '{"query":"Why?"}' }, id: 'call-1' }] } });
    const streamed = sse(await (await chat(base, { stream: true })).text()).data;
    expect(streamed.flatMap((c: any) => c.choices?.[0]?.delta?.tool_calls ?? [])).toEqual([{ index: 0, type: 'function', function: { name: 'medical_expert', arguments: '{"query":"Why?"}' }, id: 'call-1' }]);
    expect(streamed.map((c: any) => c.choices?.[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
    // A string is sent as is (malformed arguments can be scripted); the id defaults to a generated one.
    const raw = (await J(chat(base, {}))).choices[0].message.tool_calls[0];
    expect(raw.function.arguments).toBe('{"bad');
    expect(typeof raw.id).toBe('string');
  });

  test('explicit chunks, chunk delays with SSE comment pings', async () => {
    fake.script({ chunks: ['{"a":', '1}'], times: 1 }, { match: { contains: 'slow' }, chunks: [], content: '', chunkDelayMs: 1100 });
    const d = sse(await (await chat(base, { stream: true })).text()).data;
    expect(d.slice(1, 3).map((c) => c.choices[0].delta.content)).toEqual(['{"a":', '1}']);
    const t0 = Date.now();
    const slow = sse(await (await chat(base, { stream: true, messages: [{ role: 'user', content: 'slow' }] })).text());
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(slow.comments).toBe(1);
    expect(slow.data[slow.data.length - 1]).toBe('[DONE]');
  });

  test('errors: scripted status, malformed JSON 500, missing messages/model, unknown model, context exceeded', async () => {
    fake.script({ match: { contains: 'busy' }, status: 503 }, { match: { contains: 'custom' }, status: 400, errorBody: { error: { code: 400, message: 'x', type: 'invalid_request_error' } } });
    const busy = await chat(base, { messages: [{ role: 'user', content: 'busy' }], stream: true });
    expect(busy.status).toBe(503);
    expect(await J(busy)).toEqual({ error: { code: 503, message: 'Loading model', type: 'unavailable_error' } });
    expect((await J(chat(base, { messages: [{ role: 'user', content: 'custom' }] }))).error.message).toBe('x');
    const bad = await post(base, '/v1/chat/completions', '{not json');
    expect(bad.status).toBe(500);
    expect((await J(bad)).error.type).toBe('server_error');
    expect(fake.requests[fake.requests.length - 1].body).toBe('{not json');
    const noMsgs = await post(base, '/v1/chat/completions', { model: 'm1' });
    expect([noMsgs.status, (await J(noMsgs)).error.message]).toEqual([400, "'messages' is required"]);
    const unknown = await chat(base, { model: 'nope' });
    expect(await J(unknown)).toEqual({ error: { code: 400, message: "model 'nope' not found", type: 'invalid_request_error' } });
    expect((await J(chat(base, { model: undefined }))).error.message).toBe('model name is missing from the request');
    const big = await chat(base, { model: 'small' });
    expect(big.status).toBe(400);
    expect((await J(big)).error).toMatchObject({ type: 'exceed_context_size_error', n_ctx: 8, n_prompt_tokens: fakeTokenize(fakeApplyTemplate(MSGS)).length });
  });

  test('faults: refuse, malformed_json, cut_sse, mid_stream_error, huge — all recorded', async () => {
    fake.script(
      { match: { contains: 'refuse' }, fault: 'refuse' },
      { match: { contains: 'malformed' }, fault: 'malformed_json' },
      { match: { contains: 'cut' }, content: 'abcdefghijkl', fault: 'cut_sse' },
      { match: { contains: 'mid' }, content: 'abcdefgh', fault: 'mid_stream_error' },
      { match: { contains: 'huge' }, fault: 'huge', hugeBytes: 300_000 },
    );
    const say = (content: string, stream = false) => chat(base, { messages: [{ role: 'user', content }], stream });
    await expect(say('refuse')).rejects.toThrow();
    await expect((await say('malformed')).json()).rejects.toThrow();
    const cut = await (await say('cut', true)).text();
    expect(cut).not.toContain('[DONE]');
    expect(cut.endsWith('\n\n')).toBe(false);
    const mid = await say('mid', true);
    expect(mid.status).toBe(200);
    const midEv = sse(await mid.text()).data;
    expect(midEv[midEv.length - 1].error).toMatchObject({ code: 500, type: 'server_error' });
    expect(midEv).not.toContain('[DONE]');
    expect((await say('mid')).status).toBe(500);
    const huge = await (await say('huge')).text();
    expect(huge.length).toBeGreaterThanOrEqual(300_000);
    expect(JSON.parse(huge).choices[0].message.content).toHaveLength(300_000);
    expect(fake.chatRequests().map((r) => r.body.messages[0].content)).toEqual(['refuse', 'malformed', 'cut', 'mid', 'mid', 'huge']);
    await fake.waitIdle(1000);
  });

  test('hang: the fake notices a client abort; openChats drops to 0; streams stop on disconnect', async () => {
    fake.script({ match: { contains: 'hang' }, fault: 'hang' }, { match: { contains: 'long' }, content: 'x'.repeat(400), chunkDelayMs: 20 });
    const ac = new AbortController();
    const p = chat(base, { messages: [{ role: 'user', content: 'hang' }] }, { signal: ac.signal });
    await until(() => fake.openChats === 1);
    ac.abort();
    await expect(p).rejects.toThrow();
    await fake.waitIdle(1000);
    expect(fake.openChats).toBe(0);

    const ac2 = new AbortController();
    const r = await chat(base, { messages: [{ role: 'user', content: 'long' }], stream: true }, { signal: ac2.signal });
    const reader = r.body!.getReader();
    await reader.read();
    ac2.abort();
    await fake.waitIdle(1000); // a 100-chunk stream at 20 ms would take 2 s if it kept writing
    await expect(fake.waitIdle(10)).resolves.toBeUndefined();
  });

  test('delayMs, maxConcurrentChats and waitIdle timeout', async () => {
    fake.script({ delayMs: 150 });
    const t0 = Date.now();
    const both = Promise.all([chat(base, {}), chat(base, {})]);
    await until(() => fake.openChats === 2);
    await expect(fake.waitIdle(10)).rejects.toThrow(/still open/);
    await both;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    await fake.waitIdle();
    expect(fake.maxConcurrentChats).toBe(2);
    fake.reset();
    expect(fake.maxConcurrentChats).toBe(0);
  });

  test('tokenize / detokenize / apply-template / props / path-scripted routes', async () => {
    const content = 'Hello world! <|im_start|> 5 mg';
    const pieces = (await J(post(base, '/tokenize', { model: 'm1', content, with_pieces: true }))).tokens;
    expect(pieces.map((p: any) => p.piece).join('')).toBe(content);
    const ids = (await J(post(base, '/tokenize', { model: 'm1', content }))).tokens;
    expect(ids).toEqual(pieces.map((p: any) => p.id));
    expect((await J(post(base, '/tokenize', { model: 'm1', content, add_special: true }))).tokens[0]).toBe(1);
    expect((await J(post(base, '/detokenize', { model: 'm1', tokens: ids }))).content).toBe(content);
    const { prompt } = await J(post(base, '/apply-template', { model: 'm1', messages: MSGS }));
    expect(prompt).toBe(fakeApplyTemplate(MSGS));
    const n = (await J(post(base, '/tokenize', { model: 'm1', content: prompt }))).tokens.length;
    expect((await J(post(base, '/v1/chat/completions/input_tokens', { model: 'm1', messages: MSGS }))).input_tokens).toBe(n);
    expect((await J(fetch(`${base}/props`)))).toMatchObject({ role: 'router', model_path: 'none' });
    expect((await J(fetch(`${base}/props?model=m1`))).default_generation_settings.n_ctx).toBe(4096);
    expect((await fetch(`${base}/slots`)).status).toBe(400);
    fake.script({ match: { path: '/v1/models' }, status: 503, times: 1 });
    expect((await fetch(`${base}/v1/models`)).status).toBe(503);
    expect((await fetch(`${base}/v1/models`)).status).toBe(200);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });
});

describe('FakeRouter options', () => {
  test('apiKey: 401 in llama.cpp shape everywhere but /health; Bearer or X-Api-Key pass', async () => {
    const fake = new FakeRouter({ apiKey: 'sekret' });
    const base = await fake.start();
    try {
      expect((await fetch(`${base}/health`)).status).toBe(200);
      const denied = await fetch(`${base}/v1/models`);
      expect(denied.status).toBe(401);
      expect(await J(denied)).toEqual({ error: { message: 'Invalid API Key', type: 'authentication_error', code: 401 } });
      expect((await fetch(`${base}/unknown`)).status).toBe(401);
      expect((await fetch(`${base}/v1/models`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await fetch(`${base}/v1/models`, { headers: { authorization: 'Bearer sekret' } })).status).toBe(200);
      expect((await fetch(`${base}/v1/models`, { headers: { 'x-api-key': 'sekret' } })).status).toBe(200);
      const r = await post(base, '/v1/chat/completions', { model: 'anything', messages: MSGS }, { headers: { authorization: 'Bearer sekret' } });
      expect((await J(r)).model).toBe('anything'); // no models configured: any model is accepted
      expect(fake.requests).toHaveLength(7);
    } finally {
      await fake.stop();
    }
  });

  test('inputTokens=false and tokenize=false → 404; defaultReply; stop() ends hung requests', async () => {
    const fake = new FakeRouter({ inputTokens: false, tokenize: false, defaultReply: { content: 'DEF' } });
    const base = await fake.start();
    const it = await post(base, '/v1/chat/completions/input_tokens', { messages: MSGS });
    expect(it.status).toBe(404);
    expect((await J(it)).error.type).toBe('not_found_error');
    expect((await post(base, '/tokenize', { content: 'a' })).status).toBe(404);
    expect((await post(base, '/apply-template', { messages: MSGS })).status).toBe(404);
    expect((await J(chat(base, {}))).choices[0].message.content).toBe('DEF');
    fake.script({ fault: 'hang' });
    const hung = chat(base, {}).then(() => 'answered', (e: Error) => e);
    await until(() => fake.openChats === 1);
    await fake.stop();
    expect(String(await hung)).toMatch(/fetch failed/);
    expect(fake.openChats).toBe(0);
  });
});
