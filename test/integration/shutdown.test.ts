/**
 * Graceful shutdown (SIGTERM/SIGINT): new connections are refused, running turns may finish within
 * the drain period, and any still running after it are settled — a stream ends with a terminal event
 * that keeps the Answer already shown, a blocking request gets its Answer or a 503 — never cut.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { FakeRouter } from '../support/fake-router';
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { postJson, ROOT, SMALL_CHART, startTestHub, traceLines } from '../support/hub';
import type { RunningHub } from '../../server/main';

const ANSWER = JSON.stringify({ answer: 'The latest weight is 71 kg [2].', citations: [2], blocks: [] });
const messages = [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'Latest weight?' }];

async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, needle: string): Promise<string> {
  let text = '';
  while (!text.includes(needle)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before ${needle}`);
    text += new TextDecoder().decode(value);
  }
  return text;
}

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>, start: string): Promise<string> {
  let text = start;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += new TextDecoder().decode(value);
  }
}

describe('graceful shutdown', () => {
  let router: FakeRouter;
  let hub: RunningHub;
  beforeEach(async () => {
    router = new FakeRouter({ models: ['gemma-4-12b'] });
    await router.start();
    hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, HUB_ANCHOR: '2026-03-10', HUB_SSE_HEARTBEAT_SECONDS: '0.1' });
  });
  afterEach(async () => {
    await router.stop();
  });

  test('a stream still in In-Depth at the drain limit ends with done: the shown Answer kept, its checks settled', async () => {
    router.script({ match: { contains: 'DIRECT ANSWER' }, fault: 'hang' }, { content: ANSWER });
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-bare', stream: true, messages });
    const reader = res.body!.getReader();
    const head = await readUntil(reader, 'event: indepth_pending');
    const stopped = hub.shutdown(150);
    const raw = await readAll(reader, head);
    expect(await stopped).toEqual({ settled: 1 });
    const parsed = parseChartSearchStream(raw);
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'indepth_pending', 'done']);
    expect(parsed.settled).toEqual([]);
    expect(parsed.turns.at(-1)).toBe('turn_done');
    const done = parsed.events.at(-1)!.data as Record<string, any>;
    expect(done.answer).toBe('The latest weight is 71 kg [2].');
    expect(done.answerValidation.status).toBe('needs_review');
    expect(done.inDepth).toMatchObject({ status: 'needs_review', error: 'In-Depth was not generated.' });
    await router.waitIdle(3000);
    expect(router.openChats).toBe(0);
    const line = (await traceLines(hub)).at(-1)!;
    expect(line.outcome).toMatchObject({ status: 'failed', code: 'hub_shutting_down' });
  });

  test('a turn that finishes within the drain period completes normally; new connections are refused', async () => {
    router.script({ match: { contains: 'DIRECT ANSWER' }, content: '{"claims":[]}', delayMs: 200 }, { content: ANSWER, delayMs: 100 });
    const pending = postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-bare', stream: true, messages }).then((r) => r.text());
    // The turn is running once its Answer call reached the router (a fixed wait lost this race on a loaded machine).
    while (router.chatRequests().length === 0) await new Promise((r) => setTimeout(r, 5));
    const stopped = hub.shutdown(5000);
    await new Promise((r) => setTimeout(r, 20));
    await expect(fetch(`${hub.url}/health`)).rejects.toThrow();
    const parsed = parseChartSearchStream(await pending);
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'indepth_pending', 'indepth_done', 'done']);
    expect(await stopped).toEqual({ settled: 0 });
  });

  test('a blocking request with no Answer yet at the drain limit gets 503 hub_shutting_down', async () => {
    router.script({ fault: 'hang' });
    const pending = postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages });
    await new Promise((r) => setTimeout(r, 100));
    const stopped = hub.shutdown(100);
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(((await res.json()) as any).detail.code).toBe('hub_shutting_down');
    expect(await stopped).toEqual({ settled: 1 });
  });

  test('SIGTERM mid-stream: the process settles the stream and exits 0', async () => {
    await hub.close();
    router.script({ match: { contains: 'DIRECT ANSWER' }, fault: 'hang' }, { content: ANSWER });
    const child = spawn(process.execPath, ['-r', path.join(ROOT, 'scripts/register-ts.js'), path.join(ROOT, 'server/main.ts')], {
      env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', LLM_BASE_URL: router.baseUrl, LOG_LEVEL: 'silent', KNOWLEDGE_DB_PATH: ':memory:', HUB_DRAIN_SECONDS: '0.2', TEAM_TRACE_DIR: path.join(hub.traceDir, 'child') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const deadline = Date.now() + 20_000;
      while (!/listening on (\S+)/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      const url = /listening on (\S+)/.exec(out)![1];
      const res = await postJson(`${url}/v1/chat/completions`, { model: 'single-12b-bare', stream: true, messages });
      const reader = res.body!.getReader();
      const head = await readUntil(reader, 'event: indepth_pending');
      child.kill('SIGTERM');
      const parsed = parseChartSearchStream(await readAll(reader, head));
      expect(parsed.events.at(-1)!.name).toBe('done');
      expect(parsed.settled).toEqual([]);
      expect(await exited).toBe(0);
      expect(out).toContain('1 turn(s) settled at the drain limit');
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
