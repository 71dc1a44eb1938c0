import { FakeRouter } from '../support/fake-router';
import { postJson, startTestHub, traceLines } from '../support/hub';
import type { RunningHub } from '../../server/main';

/** A chart with one allergy (mandatory), a few weights (relevant) and many unrelated records. */
function chart(unrelated: number): string {
  const lines = ['Patient records (most recent first):', '[1] (2026-03-02) Finding — Weight (kg): 71 kg', '[2] (2026-01-10) Finding — Weight (kg): 74 kg', '[3] (2025-12-01) Allergy: Penicillin. Reaction: rash'];
  for (let i = 0; i < unrelated; i++) lines.push(`[${4 + i}] (2025-0${1 + (i % 9)}-0${1 + (i % 9)}) Program enrollment note number ${i} about scheduling logistics`);
  return lines.join('\n');
}
const ANSWER = JSON.stringify({ answer: 'Weight fell from 74 kg [2] to 71 kg [1].', citations: [2, 1], blocks: [] });
const PROFILE = 'eval-12b-answer-only';

describe('exact-budget context selection through HTTP (eval-12b-answer-only)', () => {
  let router: FakeRouter;
  let hub: RunningHub;
  beforeAll(async () => {
    router = new FakeRouter({ models: ['gemma-4-12b'] });
    await router.start();
    hub = await startTestHub({ LLM_BASE_URL: router.baseUrl });
  });
  afterAll(async () => {
    await hub.close();
    await router.stop();
  });
  beforeEach(() => router.reset());

  test('a chart that fits is sent whole; the count of the Answer prompt is reused by dispatch', async () => {
    router.script({ content: ANSWER });
    const text = chart(5);
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: PROFILE, messages: [{ role: 'user', content: text }, { role: 'user', content: 'How has the weight changed?' }] });
    expect(res.status).toBe(200);
    const sent = router.chatRequests()[0].body;
    expect(sent.messages[0].content).toContain(text.split('\n').slice(1).join('\n'));
    expect(sent.max_tokens).toBe(4096); // capped at the reserved output
    expect(sent.response_format.json_schema.name).toBe('chart_answer');
    const counts = router.requests.filter((r) => r.path === '/v1/chat/completions/input_tokens');
    const distinct = new Set(counts.map((r) => JSON.stringify(r.body.messages)));
    expect(distinct.size).toBe(counts.length); // no prompt counted twice
    expect(counts.some((r) => JSON.stringify(r.body.messages) === JSON.stringify(sent.messages))).toBe(true);
  });

  test('an oversized chart keeps mandatory and relevant records in canonical order and never pads with irrelevant ones', async () => {
    router.script({ content: ANSWER });
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: PROFILE, messages: [{ role: 'user', content: chart(3000) }, { role: 'user', content: 'How has the weight changed?' }] });
    expect(res.status).toBe(200);
    const prompt: string = router.chatRequests()[0].body.messages[0].content;
    expect(prompt).toContain('[1] (2026-03-02) Finding — Weight (kg): 71 kg');
    expect(prompt).toContain('[2] (2026-01-10) Finding — Weight (kg): 74 kg');
    expect(prompt).toContain('[3] (2025-12-01) Allergy: Penicillin');
    expect(prompt.indexOf('[1] ')).toBeLessThan(prompt.indexOf('[2] '));
    expect(prompt.indexOf('[2] ')).toBeLessThan(prompt.indexOf('[3] '));
    expect(prompt).not.toContain('Program enrollment note number 2999');
    // Record costs came from one batched /tokenize call.
    const batched = router.requests.filter((r) => r.path === '/tokenize' && r.body.with_pieces === true);
    expect(batched.length).toBeLessThanOrEqual(1);
  });

  test('the trace carries the context view, the exact budget measurement and the counter stats', async () => {
    router.script({ content: ANSWER });
    await postJson(`${hub.url}/v1/chat/completions`, { model: PROFILE, messages: [{ role: 'user', content: chart(3000) }, { role: 'user', content: 'How has the weight changed?' }] });
    const t = (await traceLines(hub)).pop()!;
    expect(t.context).toMatchObject({ schema_version: 'context_view.v1', selection_mode: 'selected', ledger_records: 3003, input_limit: 20480 });
    expect(t.context.included_ids).toEqual(expect.arrayContaining(['inline:1', 'inline:2', 'inline:3']));
    expect(t.context.excluded.length + t.context.included.length).toBe(3003);
    expect(t.context.input_tokens).toBeLessThanOrEqual(20480);
    expect(t.exact_request_budgets.measurements).toEqual([{ stage: 'answer', model: 'gemma-4-12b', input_tokens: t.context.input_tokens, output_tokens: 4096, context_window: 24576 }]);
    expect(t.exact_request_budgets.token_counter).toMatchObject({ chat_count_mode: 'input_tokens', record_cost_calls: expect.any(Number) });
    expect(t.exact_request_budgets.token_counter.chat_cache_hits).toBeGreaterThanOrEqual(1); // dispatch reused the selector's count
    expect(t.steps.some((s: { role: string }) => s.role === 'context_selection')).toBe(true);
  });

  test('tokenizer endpoints missing: 503 tokenization_unavailable, never an estimate, and no generation', async () => {
    const bare = new FakeRouter({ models: ['gemma-4-12b'], tokenize: false, inputTokens: false });
    await bare.start();
    const other = await startTestHub({ LLM_BASE_URL: bare.baseUrl });
    try {
      const res = await postJson(`${other.url}/v1/chat/completions`, { model: PROFILE, messages: [{ role: 'user', content: chart(3) }, { role: 'user', content: 'weight?' }] });
      expect(res.status).toBe(503);
      const body = (await res.json()) as any;
      expect(body.detail.code).toBe('tokenization_unavailable');
      expect(body.detail.source).toBe('llama-router');
      expect(bare.chatRequests()).toHaveLength(0);
    } finally {
      await other.close();
      await bare.stop();
    }
  });

  test('mandatory evidence that cannot fit → 422 insufficient_context naming the mandatory ids', async () => {
    const allergies = ['Patient records (most recent first):', ...Array.from({ length: 2500 }, (_, i) => `[${i + 1}] (2025-01-01) Allergy: substance number ${i} with a long reaction description that takes tokens`)].join('\n');
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: PROFILE, messages: [{ role: 'user', content: allergies }, { role: 'user', content: 'Allergies?' }] });
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.detail.code).toBe('insufficient_context');
    expect(body.detail.source).toBe('selector');
    expect(body.detail.mandatory_ids).toContain('inline:1');
    expect(router.chatRequests()).toHaveLength(0);
  });

  test('prior-turn citation markers are stripped from history', async () => {
    router.script({ content: ANSWER });
    await postJson(`${hub.url}/v1/chat/completions`, {
      model: PROFILE,
      messages: [
        { role: 'user', content: chart(2) },
        { role: 'user', content: 'Any allergies?' },
        { role: 'assistant', content: 'Penicillin allergy [3] documented [1][2].' },
        { role: 'user', content: 'And the weight?' },
      ],
    });
    const prompt: string = router.chatRequests()[0].body.messages[0].content;
    expect(prompt).toContain('Penicillin allergy documented.');
    expect(prompt).not.toContain('allergy [3]');
  });
});
