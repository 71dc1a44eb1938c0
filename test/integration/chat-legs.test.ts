import { FakeRouter } from '../support/fake-router';
import { postJson, SMALL_CHART, startTestHub } from '../support/hub';
import type { RunningHub } from '../../server/main';

const LEG = 'answer:gemma-4-12b@synthesis-chartsearchai~off~temp0';
const QUESTION = 'How has the weight changed?';
const messages = [
  { role: 'user', content: SMALL_CHART },
  { role: 'user', content: QUESTION },
];
const ANSWER = JSON.stringify({ answer: 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].', citations: [3, 2], blocks: [] });

async function readSse(res: Response): Promise<string[]> {
  const text = await res.text();
  return text.split('\n\n').filter((f) => f.trim() !== '');
}

describe('POST /v1/chat/completions with answer legs', () => {
  let router: FakeRouter;
  let hub: RunningHub;

  beforeAll(async () => {
    router = new FakeRouter({ models: ['gemma-4-12b', 'qwen3.5-9b'] });
    await router.start();
    hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, HUB_MAX_BODY_BYTES: '65536' });
  });
  afterAll(async () => {
    await hub.close();
    await router.stop();
  });
  beforeEach(() => router.reset());

  test('blocking: chat.completion whose content is the bare envelope; router saw the model and temperature 0', async () => {
    router.script({ match: { contains: 'How has the weight changed?' }, content: ANSWER, usage: { prompt_tokens: 120, completion_tokens: 30 } });
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: LEG, messages });
    expect(res.status).toBe(200);
    const body = await res.json() as any;
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe(LEG);
    expect(body.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(body.choices[0].finish_reason).toBe('stop');
    const envelope = JSON.parse(body.choices[0].message.content);
    expect(envelope).toEqual({ answer: 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].', citations: [3, 2], blocks: [], safetyStatus: 'unavailable' });
    expect(body.usage).toEqual({ prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 });
    const sent = router.chatRequests();
    expect(sent).toHaveLength(1);
    expect(sent[0].body.model).toBe('gemma-4-12b');
    expect(sent[0].body.temperature).toBe(0);
    expect(sent[0].body.n).toBeUndefined();
    // The whole chart reaches the writer, context first, with the leg's prompt after it.
    const prompt = sent[0].body.messages.map((m: { content: string }) => m.content).join('\n');
    expect(prompt.indexOf('[5] (2025-12-01) Allergy: Penicillin')).toBeGreaterThan(-1);
    // A leg whose gate is off computes and sends no temporal facts: the records first, then its instructions and the question.
    expect(prompt.startsWith('Patient records (most recent first):')).toBe(true);
    expect(prompt).not.toContain('TEMPORAL FACTS');
    expect(prompt.endsWith(QUESTION)).toBe(true);
  });

  test('a gate-off leg sends temporal facts first when the request asks for them (context.temporal: true)', async () => {
    router.script({ match: { contains: 'How has the weight changed?' }, content: ANSWER });
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: LEG, messages, context: { temporal: true } });
    expect(res.status).toBe(200);
    const prompt = router.chatRequests()[0].body.messages.map((m: { content: string }) => m.content).join('\n');
    // Decision 8: temporal facts first, then the records, then the leg's instructions and the question.
    expect(prompt.startsWith('TEMPORAL FACTS')).toBe(true);
    expect(prompt.indexOf('Patient records (most recent first):')).toBeGreaterThan(0);
    expect(prompt.endsWith(QUESTION)).toBe(true);
  });

  test('the caller\'s response_format is forwarded for legs; without one none is sent', async () => {
    const rf = { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } };
    router.script({ content: ANSWER });
    await postJson(`${hub.url}/v1/chat/completions`, { model: LEG, messages, response_format: rf });
    await postJson(`${hub.url}/v1/chat/completions`, { model: LEG, messages });
    const [withRf, without] = router.chatRequests();
    expect(withRf.body.response_format).toEqual(rf);
    expect(without.body.response_format).toBeUndefined();
  });

  test('streaming: the same content as OpenAI chunks ending in [DONE]', async () => {
    router.script({ content: ANSWER });
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: LEG, messages, stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const frames = await readSse(res);
    expect(frames[frames.length - 1]).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.replace(/^data: /, '')));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0].id)).toBe(true);
    const content = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(JSON.parse(content).citations).toEqual([3, 2]);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
  });

  test('model output that is not JSON is a handled case', async () => {
    router.script({ content: 'The weight went down to 71 kg [2].' });
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: LEG, messages });
    const envelope = JSON.parse((await res.json() as any).choices[0].message.content);
    expect(envelope.answer).toBe('The weight went down to 71 kg [2].');
    expect(envelope.citations).toEqual([2]);
  });

  test.each(['nope', 'answer:', 'answer:gemma-4-12b@', 'answer:gemma-4-12b~maybe', 'answer:gemma-4-12b~temperature0', 'answer:gemma-4-12b~~off', 'answer:gemma-4-12b@no-such-prompt~off'])(
    'unknown or malformed id %s → 404 model_not_found and no router traffic',
    async (model) => {
      const res = await postJson(`${hub.url}/v1/chat/completions`, { model, messages });
      expect(res.status).toBe(404);
      const body = await res.json() as any;
      expect(body.error.code).toBe('model_not_found');
      expect(body.detail.code).toBe('model_not_found');
      expect(body.detail.model).toBe(model);
      expect(body.detail.configured_profiles).toContain('single-12b-bare');
      expect(router.requests).toHaveLength(0);
    },
  );

  test('require_product_profile rejects a leg with 400 before execution; a direct client may use it', async () => {
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: LEG, messages, context: { require_product_profile: true } });
    expect(res.status).toBe(400);
    const body = await res.json() as any;
    expect(body.detail).toMatchObject({ code: 'product_profile_required', model: LEG, message: 'This client accepts configured product profiles only.' });
    expect(body.error.code).toBe('product_profile_required');
    expect(router.requests).toHaveLength(0);
  });

  test.each<[string, string | object, number, string, string | null]>([
    ['malformed JSON', '{"model": ', 400, 'invalid_request_error', null],
    ['missing messages', { model: LEG }, 400, 'invalid_request_error', 'messages'],
    ['empty messages', { model: LEG, messages: [] }, 400, 'invalid_request_error', 'messages'],
    ['wrong type', { model: 42, messages }, 400, 'invalid_request_error', 'model'],
    ['stream not boolean', { model: LEG, messages, stream: 'yes' }, 400, 'invalid_request_error', 'stream'],
    ['over the body limit', { model: LEG, messages: [{ role: 'user', content: 'x'.repeat(70000) }] }, 413, 'request_too_large', null],
  ])('%s → %i %s', async (_name, body, status, code, param) => {
    const res = await postJson(`${hub.url}/v1/chat/completions`, body);
    expect(res.status).toBe(status);
    const wire = await res.json() as any;
    expect(wire.error.code).toBe(code);
    expect(wire.detail.code).toBe(code);
    expect(typeof wire.error.message).toBe('string');
    if (param) {
      expect(wire.error.param).toBe(param);
      expect(wire.error.message).toContain(param);
    }
    expect(router.requests).toHaveLength(0);
  });

  test('request context may switch a gated leg\'s gate off (non-product only)', async () => {
    router.script({ content: ANSWER });
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: 'answer:gemma-4-12b~enforce', messages, context: { temporal_gate: 'off' } });
    expect(res.status).toBe(200);
    const envelope = JSON.parse(((await res.json()) as any).choices[0].message.content);
    expect(envelope.temporalGate).toBeUndefined(); // off: the bare shape of §3.8, nothing claimed as checked
  });

  test('router failures map to clear 5xx errors', async () => {
    router.script({ status: 500, errorBody: { error: { code: 500, message: 'boom', type: 'server_error' } } });
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: LEG, messages });
    expect(res.status).toBe(502);
    expect((await res.json() as any).detail.code).toBe('router_error');
  });

  test('a router that is down gives 502 router_unreachable', async () => {
    const dead = new FakeRouter();
    const url = await dead.start();
    await dead.stop();
    const other = await startTestHub({ LLM_BASE_URL: url, ROUTER_CONNECT_TIMEOUT_SECONDS: '1' });
    try {
      const res = await postJson(`${other.url}/v1/chat/completions`, { model: LEG, messages });
      expect(res.status).toBe(502);
      const body = await res.json() as any;
      expect(body.detail.code).toBe('router_unreachable');
      expect(body.error.type).toBe('server_error');
    } finally {
      await other.close();
    }
  });
});
