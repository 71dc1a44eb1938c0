/**
 * The LLM_BACKENDS map's choices, as tables: the least busy replica (ties in turn), health marking against an
 * injected clock, and the retry boundary — which failures never reached a model (sent to the next replica,
 * each once) and which did (never sent again) — for blocking calls, streams, raw chunks and token counts, with
 * the hub's real router clients in front of two fake llama.cpp routers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HubError, InsufficientContextError, RouterTimeoutError } from '../../../server/errors';
import { loadConfig } from '../../../server/config';
import { createMappedBackend, HealthBook, leastBusy, ReplicaSet } from '../../../server/llm/backend-map';
import { createRouterClient } from '../../../server/llm/router-client';
import { undelivered } from '../../../server/llm/undelivered';
import type { RouterClient } from '../../../server/llm';
import type { ModelBackend } from '../../../server/llm/backend-status';
import { FakeRouter, type ScriptedReply } from '../../support/fake-router';

const ROOT = path.resolve(__dirname, '../../..');

describe('least busy, ties in turn', () => {
  test.each<[string, number[], number, number]>([
    ['the idle one', [1, 0, 2], 0, 1],
    ['a tie goes to the first from the turn on', [0, 0, 0], 0, 0],
    ['a tie goes to the first from the turn on (turn 1)', [0, 0, 0], 1, 1],
    ['a tie goes to the first from the turn on (turn 5 of 3)', [0, 0, 0], 5, 2],
    ['a lower load wins over the turn', [0.5, 1, 0.25], 1, 2],
    ['per slot: 1 of 4 busy is less busy than 1 of 2', [1 / 2, 1 / 4], 0, 1],
    ['one candidate', [3], 7, 0],
  ])('%s', (_what, loads, start, chosen) => {
    expect(leastBusy(loads.map((_, i) => i), (i) => loads[i], start)).toBe(chosen);
  });
});

describe('health marking (clock injected, no timer)', () => {
  test('down for the period, then probing until a success or a failure decides', () => {
    let t = 1000;
    const health = new HealthBook(() => t, 10_000);
    expect(health.state('a')).toBe('healthy');
    health.down('a');
    expect([health.state('a'), health.usable('a')]).toEqual(['unhealthy', false]);
    t += 9_999;
    expect(health.usable('a')).toBe(false);
    t += 1;
    expect([health.state('a'), health.usable('a')]).toEqual(['probing', true]);
    health.down('a'); // the probe failed: a new period from now
    expect(health.state('a')).toBe('unhealthy');
    t += 10_000;
    health.up('a'); // the probe answered
    expect([health.state('a'), health.usable('a')]).toEqual(['healthy', true]);
    expect(health.state('b')).toBe('healthy');
  });

  test('a replica set passes over a down replica while a usable one exists, tries each once, and falls back to a down one', () => {
    let t = 0;
    const health = new HealthBook(() => t, 100);
    const load: Record<string, number> = { a: 0, b: 0.5, c: 1 };
    const replicas = ['a', 'b', 'c'].map((name) => ({ name, client: null as unknown as RouterClient }));
    const set = new ReplicaSet(replicas, health, (r) => load[r.name]);
    const order = () => {
      const attempts = set.attempts();
      const out: string[] = [];
      for (let r = attempts.next(); r; r = attempts.next()) out.push(r.name);
      return out;
    };
    expect(order()).toEqual(['a', 'b', 'c']);
    health.down('a');
    expect(order()).toEqual(['b', 'c', 'a']);
    health.down('b');
    health.down('c');
    // All down: the least busy anyway (it may be back), then the others.
    expect(order()).toEqual(['a', 'b', 'c']);
    t = 100;
    expect(order()).toEqual(['a', 'b', 'c']);
  });
});

describe('the retry boundary', () => {
  const a = new FakeRouter({ models: ['m'] });
  const b = new FakeRouter({ models: ['m'] });
  let dead: string;
  let dir: string;
  const open: ModelBackend[] = [];

  beforeAll(async () => {
    await a.start();
    await b.start();
    const gone = new FakeRouter({ models: ['m'] });
    dead = await gone.start();
    await gone.stop();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-backend-map-'));
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((m) => m.client.close()));
    a.reset();
    b.reset();
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh map (fresh health, first choice the first replica): model m on [first, b]. */
  function mapped(first: string, env: Record<string, string> = {}): { backend: ModelBackend; health: () => unknown } {
    const file = path.join(dir, `m-${Math.random().toString(36).slice(2)}.yaml`);
    fs.writeFileSync(file, `models:\n  m:\n    - { base_url: "${first}", name: first }\n    - { base_url: "${b.baseUrl}", name: second }\n`);
    const config = loadConfig({ LLM_BACKENDS: file, ROUTER_MAX_CONCURRENCY: '4', ...env }, ROOT);
    // A clock that stands still: a replica marked down stays down for the whole test.
    const backend = createMappedBackend(config, config.llmBackends!, { now: () => 0 });
    open.push(backend);
    const health = () => (backend.status().backends ?? []).map((x) => [x.name, x.health]);
    return { backend, health };
  }

  type Mode = 'chat' | 'stream' | 'chunks';
  async function call(client: RouterClient, mode: Mode, signal?: AbortSignal): Promise<string> {
    const req = { model: 'm', messages: [{ role: 'user', content: 'hello' }] };
    if (mode === 'chat') return (await client.chat(req, { signal })).content;
    let out = '';
    if (mode === 'stream') {
      for await (const p of client.chatStream(req, { signal })) if (p.kind === 'delta') out += p.content;
      return out;
    }
    for await (const c of client.chatChunks!(req, { signal })) out += deltaOf(c);
    return out;
  }

  const busy503 = { status: 503, errorBody: { error: { code: 503, message: 'Server busy, try later', type: 'unavailable_error' } } };
  const rows: Array<[string, ScriptedReply | 'dead', Mode[], 'second' | RegExp, 'unhealthy' | 'healthy']> = [
    ['connection refused (nothing listens)', 'dead', ['chat', 'stream', 'chunks'], 'second', 'unhealthy'],
    ['connection reset before any response headers', { fault: 'refuse' }, ['chat', 'stream', 'chunks'], 'second', 'unhealthy'],
    ['503 before generation', busy503, ['chat', 'stream', 'chunks'], 'second', 'unhealthy'],
    ['502 from a proxy without its upstream', { status: 502, errorBody: 'Bad Gateway' }, ['chat', 'stream'], 'second', 'unhealthy'],
    ['429 busy (not a fault)', { status: 429, errorBody: { error: { code: 429, message: 'busy', type: 'rate_limit_error' } } }, ['chat', 'stream'], 'second', 'healthy'],
    ['500: the router may have run the model', { status: 500 }, ['chat', 'stream', 'chunks'], /answered HTTP 500/, 'healthy'],
    ['400 the prompt does not fit: the same anywhere', { status: 400, errorBody: { error: { code: 400, type: 'exceed_context_size_error', message: 'too long', n_prompt_tokens: 9, n_ctx: 4 } } }, ['chat'], /exceeds the context window/, 'healthy'],
    ['headers came, then the stream broke mid-generation', { fault: 'mid_stream_error', content: 'one two three four five six' }, ['stream', 'chunks'], /failed mid-stream/, 'healthy'],
    ['headers came, then the stream ended mid-generation', { fault: 'cut_sse', content: 'one two three four five six' }, ['stream', 'chunks'], /failed mid-stream|malformed/, 'healthy'],
    ['headers came, then a body the hub cannot read', { fault: 'malformed_json', content: 'one two' }, ['chat'], /malformed/, 'healthy'],
  ];
  const cases = rows.flatMap(([what, fault, modes, outcome, health]) => modes.map((mode) => [what, mode, fault, outcome, health] as const));

  test.each(cases)('%s (%s)', async (_what, mode, fault, outcome, health) => {
    const first = fault === 'dead' ? dead : a.baseUrl;
    if (fault !== 'dead') a.script({ ...fault, times: 1 });
    b.script({ content: 'from the second replica' });
    const m = mapped(first);
    const result = await call(m.backend.client, mode).then((content) => ({ content }), (err: Error) => ({ err }));
    if (outcome === 'second') {
      expect(result).toEqual({ content: 'from the second replica' });
      expect(b.chatRequests()).toHaveLength(1);
    } else {
      // Raw chunks pass the router's own frames through as they come (raw generate's wire); the others throw.
      if ('err' in result) expect(result.err.message).toMatch(outcome);
      else expect(mode).toBe('chunks');
      expect(b.chatRequests()).toHaveLength(0);
    }
    expect(a.chatRequests()).toHaveLength(fault === 'dead' ? 0 : 1);
    expect(m.health()).toEqual([['first', health], ['second', 'healthy']]);
  });

  test('an idle timeout with the request in the router\'s hands is not re-sent', async () => {
    a.script({ fault: 'hang', times: 1 });
    const m = mapped(a.baseUrl, { ROUTER_IDLE_TIMEOUT_SECONDS: '0.2' });
    await expect(call(m.backend.client, 'chat')).rejects.toBeInstanceOf(RouterTimeoutError);
    expect(b.chatRequests()).toHaveLength(0);
  });

  test('every replica fails before a model: the last failure is the answer, each replica tried once', async () => {
    a.script({ fault: 'refuse' });
    b.script({ fault: 'refuse' });
    const m = mapped(a.baseUrl);
    const err = await call(m.backend.client, 'chat').catch((e: HubError) => e);
    expect(err).toBeInstanceOf(HubError);
    expect((err as HubError).code).toBe('router_unreachable');
    expect([a.chatRequests().length, b.chatRequests().length]).toEqual([1, 1]);
    expect(m.health()).toEqual([['first', 'unhealthy'], ['second', 'unhealthy']]);
  });

  test('a caller that gives up is not re-sent elsewhere', async () => {
    let release!: () => void;
    a.script({ hold: new Promise<void>((r) => (release = r)), fault: 'refuse', times: 1 });
    const m = mapped(a.baseUrl);
    const ac = new AbortController();
    const pending = call(m.backend.client, 'stream', ac.signal).catch((e: Error) => e);
    await until(() => a.openChats === 1);
    ac.abort();
    release();
    expect(((await pending) as Error).name).toBe('AbortError');
    expect(b.chatRequests()).toHaveLength(0);
  });

  test('a token count goes to the replica that answers (it runs no model)', async () => {
    a.script({ match: { path: '/tokenize' }, fault: 'refuse' });
    const m = mapped(a.baseUrl);
    const counted = await m.backend.client.tokenize({ model: 'm', content: 'one two three' });
    expect(counted.count).toBe(3);
    expect(a.requests.filter((r) => r.path === '/tokenize')).toHaveLength(2); // the client's own one retry on that replica
    expect(b.requests.filter((r) => r.path === '/tokenize')).toHaveLength(1);
  });

  test('a full slot queue in the hub sends nothing and says so', async () => {
    let release!: () => void;
    a.script({ hold: new Promise<void>((r) => (release = r)), content: 'held', times: 1 });
    const client = createRouterClient({ baseUrl: a.baseUrl, maxConcurrency: 1, maxQueue: 0, connectTimeoutMs: 1000, idleTimeoutMs: 0, discoveryTimeoutMs: 1000 });
    try {
      const held = client.chat({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
      await until(() => a.openChats === 1);
      const err = await client.chat({ model: 'm', messages: [{ role: 'user', content: 'y' }] }).catch((e: unknown) => e);
      expect((err as HubError).code).toBe('router_busy');
      expect(undelivered(err)).toEqual({ backendFault: false });
      release();
      expect((await held).content).toBe('held');
      // The reached call's failure modes carry no mark: a 400 the router answered after reading the prompt.
      a.script({ status: 400, errorBody: { error: { code: 400, type: 'exceed_context_size_error', message: 'x' } }, times: 1 });
      const refused = await client.chat({ model: 'm', messages: [{ role: 'user', content: 'z' }] }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(InsufficientContextError);
      expect(undelivered(refused)).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

/** A raw chunk's content delta ('' for `[DONE]`, a role or usage chunk, or a frame cut short). */
function deltaOf(chunk: string): string {
  try {
    return (JSON.parse(chunk).choices?.[0]?.delta?.content as string | undefined) ?? '';
  } catch {
    return '';
  }
}

async function until(cond: () => boolean, attempts = 500): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('condition not reached');
}
