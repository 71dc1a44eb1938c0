/** POST /v1/hub/generate through HTTP against the fake router (hub-contract §10.1, clients.md §5). */
import { postJson, useRouterAndHub } from '../support/hub';

async function until(check: () => boolean, tries = 500): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('state not reached');
}

/** SSE `data:` payloads of a whole body. */
function dataFrames(text: string): string[] {
  return text.split('\n\n').filter(Boolean).map((f) => {
    expect(f.startsWith('data: ')).toBe(true);
    return f.slice(6);
  });
}

describe('the router connection is opened ahead of the model call', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b'] });

  test('a POST to a model route opens a router connection while its body is checked, even when the body is then refused', async () => {
    const before = ctx.router.connectionsAccepted;
    const res = await postJson(`${ctx.hub.url}/v1/hub/generate`, { model: 'gemma-4-12b' }); // no messages: 400
    expect(res.status).toBe(400);
    await until(() => ctx.router.connectionsAccepted > before);
    expect(ctx.router.chatRequests()).toHaveLength(0);
    // The next call is served: on that connection or a fresh one, never failing for its sake.
    ctx.router.script({ content: 'ok' });
    const served = await postJson(`${ctx.hub.url}/v1/hub/generate`, { model: 'gemma-4-12b', messages: [{ role: 'user', content: 'q' }] });
    expect(served.status).toBe(200);
    expect(((await served.json()) as any).content).toBe('ok');
  });
});

describe('POST /v1/hub/generate', () => {
  const ctx = useRouterAndHub({ models: ['qwen2.5-14b', 'gemma-4-12b'], env: { ROUTER_MAX_CONCURRENCY: '1' } });
  const url = () => `${ctx.hub.url}/v1/hub/generate`;

  test('a model the router does not advertise is 404 model_not_found and is never forwarded', async () => {
    const res = await postJson(url(), { model: 'catalyst-query-gemma-4-12b', messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(404);
    const err = (await res.json()) as any;
    expect(err.detail).toMatchObject({ code: 'model_not_found', model: 'catalyst-query-gemma-4-12b', advertised_model_ids: ['qwen2.5-14b', 'gemma-4-12b'] });
    expect(err.error.code).toBe('model_not_found');
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });

  test('the earlier Catalyst shape {model, messages, temperature, dry_multiplier, response_format?, max_tokens?} → {model, content}', async () => {
    ctx.router.script({ content: '{"sql":"SELECT 1"}' });
    const body = { model: 'qwen2.5-14b', messages: [{ role: 'system', content: 'sql only' }, { role: 'user', content: 'q' }], temperature: 0, dry_multiplier: 0, response_format: { type: 'json_object', schema: { type: 'object' } }, max_tokens: 64 };
    const res = await postJson(url(), body);
    expect(res.status).toBe(200);
    const out = (await res.json()) as any;
    expect(out).toMatchObject({ model: 'qwen2.5-14b', content: '{"sql":"SELECT 1"}' });
    // Also a chat.completion for OpenAI clients, with the router's usage.
    expect(out).toMatchObject({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: '{"sql":"SELECT 1"}' }, finish_reason: 'stop' }] });
    expect(out.usage.prompt_tokens).toBeGreaterThan(0);
    const [call] = ctx.router.chatRequests();
    expect(call.body).toMatchObject({ ...body, stream: false });
  });

  test('invalid bodies are 400 before any model call', async () => {
    for (const body of [{ messages: [{ role: 'user', content: 'x' }] }, { model: 'qwen2.5-14b', messages: [] }, { model: 'qwen2.5-14b', messages: [{ role: 'user', content: 'x' }], n: 2 }, { model: 'qwen2.5-14b', messages: [{ role: 'user', content: 'x' }], temperature: 'hot' }]) {
      const res = await postJson(url(), body);
      expect(res.status).toBe(400);
      expect((((await res.json()) as any)).detail.code).toBe('invalid_request_error');
    }
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });

  test('stream: true forwards the router\'s own chunks (its ids, timings, finish and usage chunks) and [DONE]', async () => {
    ctx.router.script({ chunks: ['SEL', 'ECT', ' 1'] });
    const res = await postJson(url(), { model: 'gemma-4-12b', messages: [{ role: 'user', content: 'q' }], stream: true, stream_options: { include_usage: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const frames = dataFrames(await res.text());
    expect(frames[frames.length - 1]).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? null)).toEqual([null, 'SEL', 'ECT', ' 1', null, null]);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const usage = chunks[chunks.length - 1];
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens).toBeGreaterThan(0);
    // llama.cpp's timings ride on the last chunk: the hub never invents them, so they prove passthrough.
    expect(usage.timings).toBeDefined();
    expect(ctx.router.chatRequests()[0].body.stream_options).toEqual({ include_usage: true });
  });

  test('without include_usage there is no usage chunk (the caller\'s stream_options reach the router)', async () => {
    ctx.router.script({ chunks: ['a', 'b'] });
    const res = await postJson(url(), { model: 'gemma-4-12b', messages: [{ role: 'user', content: 'q' }], stream: true });
    const chunks = dataFrames(await res.text()).slice(0, -1).map((f) => JSON.parse(f));
    expect(chunks.every((c) => c.usage === undefined)).toBe(true);
    expect(ctx.router.chatRequests()[0].body.stream_options).toEqual({ include_usage: false });
  });

  test('chunks reach the client as the router writes them, before the router has finished', async () => {
    ctx.router.script({ chunks: ['one', 'two', 'three'], chunkDelayMs: 150 });
    const res = await postJson(url(), { model: 'gemma-4-12b', messages: [{ role: 'user', content: 'q' }], stream: true });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"one"')) {
      const step = await reader.read();
      if (step.done) break;
      text += decoder.decode(step.value, { stream: true });
    }
    expect(text).toContain('"one"');
    expect(text).not.toContain('"three"');
    expect(ctx.router.openChats).toBe(1);
    await reader.cancel();
    await until(() => ctx.router.openChats === 0 && ctx.hub.routerSlots().inFlight === 0);
  });

  test('a router error before the first chunk is a JSON error, not a broken stream', async () => {
    ctx.router.script({ status: 500, errorBody: { error: { code: 500, message: 'boom', type: 'server_error' } } });
    const res = await postJson(url(), { model: 'gemma-4-12b', messages: [{ role: 'user', content: 'q' }], stream: true });
    expect(res.status).toBe(502);
    expect((((await res.json()) as any)).detail.code).toBe('router_error');
  });

  test('a disconnect cancels the router request and frees the slot (blocking and streamed)', async () => {
    for (const stream of [false, true]) {
      ctx.router.reset();
      ctx.router.script({ fault: 'hang', times: 1 });
      const abort = new AbortController();
      const call = postJson(url(), { model: 'gemma-4-12b', messages: [{ role: 'user', content: 'q' }], stream }, { signal: abort.signal }).catch((err: Error) => err.name);
      await until(() => ctx.router.openChats === 1);
      expect(ctx.hub.routerSlots().inFlight).toBe(1);
      abort.abort();
      expect(await call).toBe('AbortError');
      await until(() => ctx.router.openChats === 0 && ctx.hub.routerSlots().inFlight === 0);
    }
  });
});
