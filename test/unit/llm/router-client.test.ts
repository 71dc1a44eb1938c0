import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HubError } from '../../../server/errors';
import { createRouterClient, type RouterClientOptions } from '../../../server/llm/router-client';
import { mapTransportError } from '../../../server/llm/router-errors';
import type { ChatRequest, RouterClient, SlotEvidence, StreamPiece } from '../../../server/llm/types';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => void;

const servers: http.Server[] = [];
const clients: RouterClient[] = [];

/** A tiny scriptable router on 127.0.0.1; records every request it sees. */
async function startRouter(handler: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      handler(req, res, s);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function client(baseUrl: string, extra: Partial<RouterClientOptions> = {}): RouterClient {
  const c = createRouterClient({
    baseUrl,
    apiKey: '',
    maxConcurrency: 1,
    maxQueue: 4,
    connectTimeoutMs: 1000,
    idleTimeoutMs: 2000,
    discoveryTimeoutMs: 500,
    loadingRetryDelayMs: 10,
    ...extra,
  });
  clients.push(c);
  return c;
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function sseHead(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }], model: 'm1', object: 'chat.completion.chunk' })}\n\n`;
const usageChunk = `data: ${JSON.stringify({ choices: [], model: 'm1', usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12, prompt_tokens_details: { cached_tokens: 9 } } })}\n\n`;

const REQ: ChatRequest = { model: 'm1', messages: [{ role: 'user', content: 'hi' }], temperature: 0 };

async function drain(it: AsyncIterable<StreamPiece>): Promise<StreamPiece[]> {
  const out: StreamPiece[] = [];
  for await (const p of it) out.push(p);
  return out;
}

const closed = (res: http.ServerResponse): Promise<void> => new Promise((r) => res.on('close', () => r()));

/** Fails unless `p` settles within `ms` (no idle timeout is set, so only our abort can close the socket). */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_r, reject) => (timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

describe('chat (blocking)', () => {
  it('posts to the prefixed path without n and returns content, usage and timings', async () => {
    const r = await startRouter((_req, res) =>
      json(res, 200, {
        model: 'm1',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hello' } }],
        usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13, prompt_tokens_details: { cached_tokens: 9 } },
      }),
    );
    const slots: SlotEvidence = { acquisitions: 0, releases: 0, active: 0 };
    const out = await client(`${r.url}/prefix/`).chat({ ...REQ, n: 2 }, { slots });
    expect(out).toMatchObject({ content: 'hello', finishReason: 'stop', model: 'm1' });
    expect(out.usage).toEqual({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13, cached_tokens: 9 });
    expect(out.queueWaitMs).toBeGreaterThanOrEqual(0);
    expect(out.routerMs).toBeGreaterThanOrEqual(0);
    expect(r.seen[0].url).toBe('/prefix/v1/chat/completions');
    const sent = JSON.parse(r.seen[0].body);
    expect(sent).toMatchObject({ model: 'm1', stream: false, temperature: 0 });
    expect(sent).not.toHaveProperty('n');
    expect(slots).toEqual({ acquisitions: 1, releases: 1, active: 0 });
  });

  it('reports zero usage when the router sends none', async () => {
    const r = await startRouter((_q, res) => json(res, 200, { choices: [{ message: { content: 'x' }, finish_reason: 'length' }] }));
    const out = await client(r.url).chat(REQ);
    expect(out.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });

  it('sends the bearer header only when a key is set', async () => {
    const r = await startRouter((_q, res) => json(res, 200, { choices: [{ message: { content: '' } }] }));
    await client(r.url).chat(REQ);
    await client(r.url, { apiKey: 'sekrit' }).chat(REQ);
    expect(r.seen[0].headers.authorization).toBeUndefined();
    expect(r.seen[1].headers.authorization).toBe('Bearer sekrit');
  });

  it.each([
    [500, { error: { code: 500, message: 'boom', type: 'server_error' } }, 'router_error', 502],
    [400, { error: { code: 400, message: "model 'nope' not found", type: 'invalid_request_error' } }, 'model_unavailable', 503],
    [401, { error: { message: 'Invalid API Key', type: 'authentication_error' } }, 'router_error', 502],
  ])('maps HTTP %i', async (status, body, code, hubStatus) => {
    const r = await startRouter((_q, res) => json(res, status, body));
    const err = await client(r.url).chat(REQ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HubError);
    expect(err).toMatchObject({ code, status: hubStatus });
    if (code === 'router_error') expect((err as HubError).message).toContain(String(status));
  });

  it('maps exceed_context_size_error to insufficient_context with the router figures', async () => {
    const r = await startRouter((_q, res) =>
      json(res, 400, { error: { code: 400, message: 'request (608 tokens) exceeds …', type: 'exceed_context_size_error', n_prompt_tokens: 608, n_ctx: 256 } }),
    );
    await expect(client(r.url).chat(REQ)).rejects.toMatchObject({
      code: 'insufficient_context',
      status: 422,
      extra: { source: 'llama-router', n_prompt_tokens: 608, n_ctx: 256 },
    });
  });

  it('maps 429 to router_busy with the router Retry-After', async () => {
    const r = await startRouter((_q, res) => json(res, 429, { error: { message: 'busy' } }, { 'retry-after': '7' }));
    const err = (await client(r.url).chat(REQ).catch((e: unknown) => e)) as HubError;
    expect(err).toMatchObject({ code: 'router_busy', status: 503 });
    expect(err.headers['Retry-After']).toBe('7');
  });

  it('retries 503 Loading model, then succeeds or gives up with router_unavailable', async () => {
    let calls = 0;
    const loading = { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } };
    const r = await startRouter((_q, res) => (++calls < 3 ? json(res, 503, loading) : json(res, 200, { choices: [{ message: { content: 'ok' } }] })));
    expect((await client(r.url).chat(REQ)).content).toBe('ok');
    expect(calls).toBe(3);
    const r2 = await startRouter((_q, res) => json(res, 503, loading));
    await expect(client(r2.url, { loadingRetries: 2 }).chat(REQ)).rejects.toMatchObject({ code: 'router_unavailable', status: 503 });
    expect(r2.seen).toHaveLength(3);
  });

  it('maps a malformed or oversized body to router_error', async () => {
    const r = await startRouter((_q, res) => (res.writeHead(200), res.end('{"choices": [')));
    await expect(client(r.url).chat(REQ)).rejects.toMatchObject({ code: 'router_error', status: 502 });
    const big = await startRouter((_q, res) => json(res, 200, { choices: [{ message: { content: 'x'.repeat(5000) } }] }));
    await expect(client(big.url, { maxResponseBytes: 1000 }).chat(REQ)).rejects.toMatchObject({ code: 'router_error' });
  });

  it('maps connection refused to router_unreachable without credentials', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const c = client(`http://user:pw@127.0.0.1:${port}`, { apiKey: 'sekrit' });
    const err = (await c.chat(REQ).catch((e: unknown) => e)) as HubError;
    expect(err).toMatchObject({ code: 'router_unreachable', status: 502 });
    expect(err.message).not.toMatch(/pw|sekrit/);
    expect(c.slotState().inFlight).toBe(0);
  });

  // ~0.7–1 s: undici runs headers/body timeouts on its 0.5 s-tick fast timers, whatever the configured value.
  it('maps an idle router (no headers) to router_timeout', async () => {
    const r = await startRouter(() => undefined);
    await expect(client(r.url, { idleTimeoutMs: 150 }).chat(REQ)).rejects.toMatchObject({ code: 'router_timeout', status: 504 });
  });

  it('an abort frees the caller\'s own slot or queue place and surfaces as AbortError', async () => {
    const r = await startRouter(() => undefined);
    const c = client(r.url, { idleTimeoutMs: 0 });
    const holder = new AbortController();
    const waiter = new AbortController();
    const holderSlots: SlotEvidence = { acquisitions: 0, releases: 0, active: 0 };
    const waiterSlots: SlotEvidence = { acquisitions: 0, releases: 0, active: 0 };
    const held = c.chat(REQ, { signal: holder.signal, slots: holderSlots }).catch((e: unknown) => e);
    const queued = c.chat(REQ, { signal: waiter.signal, slots: waiterSlots }).catch((e: unknown) => e);
    while (r.seen.length < 1) await new Promise((res) => setTimeout(res, 5));
    expect(c.slotState()).toMatchObject({ inFlight: 1, queued: 1 });
    waiter.abort();
    expect(await queued).toMatchObject({ name: 'AbortError' });
    expect(c.slotState()).toMatchObject({ inFlight: 1, queued: 0 });
    expect(holderSlots.active).toBe(1);
    holder.abort();
    expect(await held).toMatchObject({ name: 'AbortError' });
    expect(c.slotState()).toMatchObject({ inFlight: 0, queued: 0 });
    expect(holderSlots).toEqual({ acquisitions: 1, releases: 1, active: 0 });
    expect(waiterSlots).toEqual({ acquisitions: 0, releases: 0, active: 0 });
  });

  it('queues behind the slot and refuses when the queue is full', async () => {
    let release: () => void = () => undefined;
    const r = await startRouter((_q, res) => {
      release = () => json(res, 200, { choices: [{ message: { content: 'ok' } }] });
    });
    const c = client(r.url, { maxQueue: 1 });
    const first = c.chat(REQ);
    const second = c.chat(REQ);
    await expect(c.chat(REQ)).rejects.toMatchObject({ code: 'router_busy', status: 503 });
    while (r.seen.length < 1) await new Promise((res) => setTimeout(res, 5));
    expect(c.slotState()).toMatchObject({ inFlight: 1, queued: 1 });
    release();
    await first;
    while (r.seen.length < 2) await new Promise((res) => setTimeout(res, 5));
    release();
    expect((await second).queueWaitMs).toBeGreaterThan(0);
    expect(c.slotState()).toMatchObject({ inFlight: 0, queued: 0 });
  });
});

describe('chatStream', () => {
  it('parses deltas, ignores comment pings and reads usage from the usage chunk', async () => {
    const r = await startRouter((_q, res) => {
      sseHead(res);
      res.write(':\n\n');
      res.write(chunk({ role: 'assistant', content: null }));
      res.write(chunk({ content: 'Hel' }) + ':\n\n' + chunk({ content: 'lo' }));
      res.write(chunk({}, 'stop'));
      res.end(usageChunk + 'data: [DONE]\n\n');
    });
    const slots: SlotEvidence = { acquisitions: 0, releases: 0, active: 0 };
    const pieces = await drain(client(r.url).chatStream({ ...REQ, n: 3 }, { slots }));
    expect(pieces.slice(0, 2)).toEqual([
      { kind: 'delta', content: 'Hel' },
      { kind: 'delta', content: 'lo' },
    ]);
    const done = pieces[2];
    expect(done.kind).toBe('done');
    if (done.kind !== 'done') return;
    expect(done.result).toMatchObject({ content: 'Hello', finishReason: 'stop', model: 'm1' });
    expect(done.result.usage).toEqual({ prompt_tokens: 10, completion_tokens: 2, total_tokens: 12, cached_tokens: 9 });
    const sent = JSON.parse(r.seen[0].body);
    expect(sent).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(sent).not.toHaveProperty('n');
    expect(slots).toEqual({ acquisitions: 1, releases: 1, active: 0 });
  });

  it.each([
    ['a mid-stream error frame', chunk({ content: 'a' }) + 'data: {"error":{"code":500,"message":"bad utf-8","type":"server_error"}}\n\n'],
    ['a stream cut without finish or [DONE]', chunk({ content: 'a' })],
    ['a malformed chunk', chunk({ content: 'a' }) + 'data: {"choices": [\n\n'],
    ['an event over the byte cap', chunk({ content: 'x'.repeat(3000) })],
  ])('fails with router_error on %s', async (_name, payload) => {
    const r = await startRouter((_q, res) => (sseHead(res), res.end(payload)));
    const c = client(r.url, { maxResponseBytes: 2000 });
    const err = await drain(c.chatStream(REQ)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HubError);
    expect(err).toMatchObject({ code: 'router_error', status: 502 });
    expect(c.slotState().inFlight).toBe(0);
  });

  it('maps an error status before the first token', async () => {
    const r = await startRouter((_q, res) => json(res, 400, { error: { type: 'exceed_context_size_error', message: 'x', n_prompt_tokens: 9, n_ctx: 8 } }));
    await expect(drain(client(r.url).chatStream(REQ))).rejects.toMatchObject({ code: 'insufficient_context' });
  });

  it('an abort mid-stream surfaces as AbortError, frees the slot and closes the router socket', async () => {
    const { r, socketClosed } = await routerStuckAfterFirstChunk();
    const c = client(r.url, { idleTimeoutMs: 0 });
    const ac = new AbortController();
    const slots: SlotEvidence = { acquisitions: 0, releases: 0, active: 0 };
    const got: StreamPiece[] = [];
    const err = await (async () => {
      for await (const p of c.chatStream(REQ, { signal: ac.signal, slots })) {
        got.push(p);
        ac.abort();
      }
    })().catch((e: unknown) => e);
    expect(got).toEqual([{ kind: 'delta', content: 'first' }]);
    expect(err).toMatchObject({ name: 'AbortError' });
    expect(err).not.toBeInstanceOf(HubError);
    await within(socketClosed(), 500);
    expect(c.slotState().inFlight).toBe(0);
    expect(slots).toEqual({ acquisitions: 1, releases: 1, active: 0 });
  });

  it('breaking out of the iterator aborts the router request and frees the slot', async () => {
    const { r, socketClosed } = await routerStuckAfterFirstChunk();
    const c = client(r.url, { idleTimeoutMs: 0 });
    for await (const p of c.chatStream(REQ)) {
      expect(p.kind).toBe('delta');
      break;
    }
    await within(socketClosed(), 500);
    expect(c.slotState().inFlight).toBe(0);
  });

  it('maps transport failures by phase (undici timers are too coarse to time out a stream quickly here)', () => {
    const base = 'http://u:pw@h:1/p';
    const coded = (code: string): Error => Object.assign(new Error(code), { code });
    expect(mapTransportError(coded('UND_ERR_BODY_TIMEOUT'), base, true)).toMatchObject({ code: 'router_timeout', status: 504 });
    expect(mapTransportError(coded('UND_ERR_SOCKET'), base, true)).toMatchObject({ code: 'router_error', status: 502 });
    const refused = new AggregateError([coded('ECONNREFUSED')]);
    const err = mapTransportError(refused, base, false);
    expect(err).toMatchObject({ code: 'router_unreachable', status: 502 });
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.message).not.toContain('pw');
  });
});

describe('listModels', () => {
  it('is reachable:false when the router is down, errs or stalls', async () => {
    expect(await client('http://127.0.0.1:1').listModels()).toEqual({ reachable: false, ids: [], entries: {} });
    const bad = await startRouter((_q, res) => json(res, 500, { error: 'x' }));
    expect((await client(bad.url).listModels()).reachable).toBe(false);
    const stall = await startRouter(() => undefined);
    expect((await client(stall.url, { discoveryTimeoutMs: 100 }).listModels()).reachable).toBe(false);
  });

  it('lists router-mode entries of any status (unloaded included), sanitised, without a slot', async () => {
    const r = await startRouter((_q, res) =>
      json(res, 200, {
        object: 'list',
        data: [
          { id: 'tiny-chatml', status: { value: 'unloaded', args: ['llama-server', '--api-key', 'sekrit'] } },
          { id: 'tiny-raw', status: { value: 'loaded' } },
          { id: 'tiny-raw', status: { value: 'loading' } },
          { id: 'constructor' },
          { status: { value: 'loaded' } },
        ],
      }),
    );
    const inv = await client(r.url, { apiKey: 'k' }).listModels();
    expect(inv.reachable).toBe(true);
    expect(inv.ids).toEqual(['tiny-chatml', 'tiny-raw', 'constructor']);
    expect(inv.entries['tiny-raw']).toMatchObject({ status: { value: 'loaded' } });
    expect(JSON.stringify(inv.entries)).not.toContain('sekrit');
    expect(r.seen[0]).toMatchObject({ method: 'GET', url: '/v1/models' });
    expect(r.seen[0].headers.authorization).toBe('Bearer k');
  });
});

describe('token counting', () => {
  it('remembers an absent /input_tokens (404) and stops asking', async () => {
    const r = await startRouter((_q, res) => json(res, 404, { error: { message: 'File Not Found', type: 'not_found_error' } }));
    const c = client(r.url);
    expect(await c.inputTokens(REQ)).toBeNull();
    expect(await c.inputTokens(REQ)).toBeNull();
    expect(r.seen).toHaveLength(1);
    expect(r.seen[0].url).toBe('/v1/chat/completions/input_tokens');
  });

  it('returns input_tokens when present', async () => {
    const r = await startRouter((_q, res) => json(res, 200, { input_tokens: 10, object: 'response.input_tokens' }));
    expect(await client(r.url).inputTokens(REQ)).toBe(10);
  });

  it('tokenizes with pieces given as text or bytes', async () => {
    const r = await startRouter((_q, res) => json(res, 200, { tokens: [{ id: 1, piece: ' Hé' }, { id: 2, piece: [0xe2, 0x82] }] }));
    const out = await client(r.url).tokenize({ model: 'm1', content: ' Hé', with_pieces: true });
    expect(out.count).toBe(2);
    expect(out.tokens).toEqual([1, 2]);
    expect(out.pieces?.map((p) => Array.from(p))).toEqual([[0x20, 0x48, 0xc3, 0xa9], [0xe2, 0x82]]);
    expect(r.seen[0].url).toBe('/tokenize');
  });

  it('accepts plain ids or a count, and renders templates', async () => {
    const r = await startRouter((q, res) => {
      if (q.url === '/apply-template') return json(res, 200, { prompt: '[INST] hi [/INST]' });
      json(res, 200, r.seen.length === 1 ? { tokens: [5, 6, 7] } : { n_tokens: 4 });
    });
    const c = client(r.url);
    expect(await c.tokenize({ model: 'm1', content: 'x' })).toEqual({ count: 3, tokens: [5, 6, 7] });
    expect(await c.tokenize({ model: 'm1', content: 'x' })).toEqual({ count: 4 });
    expect(await c.applyTemplate({ model: 'm1', messages: REQ.messages })).toBe('[INST] hi [/INST]');
    expect(c.slotState().inFlight).toBe(0);
  });

  it('retries once on a transport error but never on an HTTP error', async () => {
    let calls = 0;
    const flaky = await startRouter((q, res) => (++calls === 1 ? q.socket.destroy() : json(res, 200, { tokens: [1] })));
    expect((await client(flaky.url).tokenize({ model: 'm1', content: 'x' })).count).toBe(1);
    expect(calls).toBe(2);
    const failing = await startRouter((_q, res) => json(res, 500, { error: { message: 'nope' } }));
    await expect(client(failing.url).tokenize({ model: 'm1', content: 'x' })).rejects.toMatchObject({
      code: 'tokenization_unavailable',
      status: 503,
      extra: { source: 'llama-router' },
    });
    expect(failing.seen).toHaveLength(1);
  });

  it('maps an unreachable router and malformed bodies to tokenization_unavailable', async () => {
    await expect(client('http://127.0.0.1:1').applyTemplate({ model: 'm1', messages: [] })).rejects.toMatchObject({ code: 'tokenization_unavailable' });
    const r = await startRouter((_q, res) => json(res, 200, { tokens: [{ id: 1, piece: 7 }] }));
    await expect(client(r.url).tokenize({ model: 'm1', content: 'x', with_pieces: true })).rejects.toMatchObject({ code: 'tokenization_unavailable' });
  });

  it('surfaces an abort as AbortError', async () => {
    const r = await startRouter(() => undefined);
    const ac = new AbortController();
    const p = client(r.url).tokenize({ model: 'm1', content: 'x' }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });
});

/** A streaming router that sends one content chunk and then stalls; reports when its socket closes. */
async function routerStuckAfterFirstChunk() {
  let closedPromise: Promise<void> = Promise.resolve();
  const r = await startRouter((_q, res) => {
    closedPromise = closed(res);
    sseHead(res);
    res.write(chunk({ content: 'first' }));
  });
  return { r, socketClosed: () => closedPromise };
}
