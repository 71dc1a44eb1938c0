/**
 * Fault injection against product turns: the router refusing connections, 500s, 429, malformed JSON,
 * a body cut mid-way, a never-ending silent reply, a reply larger than the limit, and a router without
 * tokenizer endpoints — at the Answer, at a model check and at In-Depth, streamed and blocking. Every
 * turn ends in a settled envelope or a clear error; no slot or engine is left behind; the hub stays up.
 */
import { FakeRouter, type ScriptedReply } from '../support/fake-router';
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { MARK, scriptChecked } from '../support/checkers';
import { postJson, SMALL_CHART, startTestHub } from '../support/hub';
import type { RunningHub } from '../../server/main';

const ANSWER = 'The latest weight is 71 kg [2].';
const CLAIMS = ['A penicillin allergy with rash is documented [5].'];
const messages = [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'Latest weight?' }];

const FAULTS: Array<[string, Partial<ScriptedReply>]> = [
  ['connection refused', { fault: 'refuse' }],
  ['HTTP 500', { status: 500 }],
  ['HTTP 429', { status: 429, errorBody: { error: { code: 429, message: 'busy', type: 'unavailable_error' } } }],
  ['malformed JSON body', { fault: 'malformed_json' }],
  ['body cut mid-way', { fault: 'cut_sse' }],
  ['silent reply past the idle timeout', { fault: 'hang' }],
  ['reply over the size limit', { fault: 'huge', hugeBytes: 17 * 1024 * 1024 }],
];

/** Where the fault lands: the first Answer call, the model review, or the In-Depth call. */
const AT: Array<[string, string, Partial<ScriptedReply>['match']]> = [
  ['answer', 'single-12b-checked', { test: (req) => req.body.response_format?.json_schema?.name === 'chart_answer' }],
  ['review', 'single-12b-checked', { contains: MARK.answerReview }],
  ['grounding', 'single-12b-checked', { contains: MARK.grounding }],
  ['indepth', 'single-12b-bare', { contains: MARK.inDepth }],
];

describe('router faults at every model call of a product turn', () => {
  let router: FakeRouter;
  let hub: RunningHub;
  beforeAll(async () => {
    router = new FakeRouter({ models: ['gemma-4-12b', 'qwen3.5-9b'] });
    await router.start();
    hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, HUB_ANCHOR: '2026-03-10', ROUTER_IDLE_TIMEOUT_SECONDS: '0.3', HUB_SSE_HEARTBEAT_SECONDS: '0.1' });
  });
  afterAll(async () => {
    await hub.close();
    await router.stop();
  });
  beforeEach(() => router.reset());
  afterEach(async () => {
    // Nothing is left behind: no slot, no running engine, no open router exchange; the hub still answers.
    await router.waitIdle(3000);
    expect(router.openChats).toBe(0);
    expect(hub.routerSlots()).toMatchObject({ inFlight: 0, queued: 0 });
    expect(hub.activeTurns()).toBe(0);
    expect((await fetch(`${hub.url}/health`)).status).toBe(200);
  });

  const cases = AT.flatMap(([at, model, match]) => FAULTS.map(([fault, reply]) => [at, fault, model, match, reply] as const));

  test.each(cases)('%s call fails with %s: the stream and the blocking request each end settled', async (at, _fault, model, match, reply) => {
    router.script({ match, ...reply });
    scriptChecked(router, { answer: ANSWER, citations: [2], claims: CLAIMS });

    const res = await postJson(`${hub.url}/v1/chat/completions`, { model, messages, stream: true });
    expect(res.status).toBe(200);
    const parsed = parseChartSearchStream(await res.text());
    expect(parsed.settled).toEqual([]);
    const terminal = parsed.events.at(-1)!;
    expect(terminal.name).toBe('done');
    const done = terminal.data as Record<string, any>;
    expect(done.answerValidation.status).not.toBe('checking');
    expect(done.inDepth.status).not.toBe('pending');

    const blocking = await postJson(`${hub.url}/v1/chat/completions`, { model, messages });
    expect(blocking.status).toBe(200);
    const env = JSON.parse(((await blocking.json()) as any).choices[0].message.content);
    expect(env.answerValidation.status).not.toBe('checking');

    if (at === 'answer') {
      // No Answer could be written: the fallback, red, needs_review — never a made-up answer.
      expect(done.answer).toBe('I could not produce a complete answer for this turn. Please try again.');
      expect(done.answerValidation.status).toBe('needs_review');
    } else {
      // The Answer written before the fault is kept; the failed check is said, never passed.
      expect(done.answer).toBe(ANSWER);
      expect(env.answer).toBe(ANSWER);
      if (at === 'review') expect(done.answerValidation.status).toBe('unavailable');
      if (at === 'grounding') expect(done.references[0]).toMatchObject({ support: 'unchecked', groundingStatus: 'unchecked' });
      if (at === 'indepth') expect(done.inDepth.status).toBe('needs_review');
    }
  });

  test('a router without tokenizer endpoints: a clear 503 (blocking) or event: error (stream), never an estimate', async () => {
    const bare = new FakeRouter({ models: ['gemma-4-12b'], tokenize: false, inputTokens: false });
    await bare.start();
    const other = await startTestHub({ LLM_BASE_URL: bare.baseUrl });
    try {
      const blocking = await postJson(`${other.url}/v1/chat/completions`, { model: 'single-12b-bare', messages });
      expect(blocking.status).toBe(503);
      expect(((await blocking.json()) as any).detail.code).toBe('tokenization_unavailable');
      const stream = await postJson(`${other.url}/v1/chat/completions`, { model: 'single-12b-bare', messages, stream: true });
      const parsed = parseChartSearchStream(await stream.text());
      expect(parsed.events.map((e) => e.name)).toEqual(['error']);
      expect(parsed.events[0].data).toMatchObject({ code: 'tokenization_unavailable' });
      expect(bare.chatRequests()).toHaveLength(0);
    } finally {
      await other.close();
      await bare.stop();
    }
  });
});
