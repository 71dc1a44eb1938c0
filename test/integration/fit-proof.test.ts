/**
 * Proving fit without a pre-call count (decision 24), end to end: on a chart whose prompts provably fit,
 * a checked turn counts only its Answer selection; each later stage's exact figure is the router's
 * reported prompt_tokens. A prompt the bound cannot prove (near or over the limit) is still counted
 * exactly before its call, and HUB_FIT_PROOF=exact counts every call as before.
 */
import { scriptChecked } from '../support/checkers';
import { postJson, SMALL_CHART, traceLines, useRouterAndHub } from '../support/hub';
import { syntheticChart } from '../support/synthetic-chart';
import type { FakeRouter } from '../support/fake-router';

const QUESTION = 'How has the weight changed?';
const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
const CLAIMS = ['The most recent weight, 71 kg, was recorded at the 2026-03-02 visit [2].', 'A penicillin allergy with rash is documented [5].'];
const MODELS = ['gemma-4-12b', 'qwen3.5-9b'];
const ENV = { HUB_ANCHOR: '2026-03-10' };

async function checkedTurn(url: string, chart: string): Promise<Record<string, any>> {
  const res = await postJson(`${url}/v1/chat/completions`, { model: 'single-12b-checked', messages: [{ role: 'user', content: chart }, { role: 'user', content: QUESTION }] });
  expect(res.status).toBe(200);
  return JSON.parse(((await res.json()) as any).choices[0].message.content);
}

const paths = (router: FakeRouter) => router.requests.filter((r) => r.method === 'POST').map((r) => r.path);
const counts = (router: FakeRouter) => paths(router).filter((p) => p.endsWith('/input_tokens')).length;

describe('fit proven by a byte bound (HUB_FIT_PROOF default)', () => {
  const ctx = useRouterAndHub({ models: MODELS, env: ENV });

  test('a small checked turn makes one count (the Answer selection) and one call per stage; the probe runs once per model', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: CLAIMS });
    const env = await checkedTurn(ctx.hub.url, SMALL_CHART);
    expect(env.answerValidation.status).toBe('checked');
    const chats = ctx.router.chatRequests();
    expect(counts(ctx.router)).toBe(1);
    // Asked once for the writer model (every stage here uses it): the byte premise (one /tokenize), the partition
    // probe (two renders of two user messages and the text between them counted two ways: Llama 2's `[INST]`
    // holds no special token, so the stages stay joined) and the template's bytes around one message.
    expect(paths(ctx.router).filter((p) => p === '/tokenize' || p === '/apply-template').sort()).toEqual(['/apply-template', '/apply-template', '/apply-template', '/tokenize', '/tokenize', '/tokenize']);
    for (const chat of chats) expect(chat.body.messages).toHaveLength(1);
    const [line] = await traceLines(ctx.hub);
    const measurements = line.exact_request_budgets.measurements as Array<Record<string, any>>;
    expect(measurements[0]).toMatchObject({ stage: 'answer', input_tokens: line.context.input_tokens });
    expect(measurements[0]).not.toHaveProperty('method');
    const later = measurements.slice(1);
    expect(later.length).toBe(chats.length - 1);
    for (const m of later) {
      expect(m.method).toBe('byte_bound');
      // The bound is an upper bound, and the recorded figure is the router's own count of that prompt.
      expect(m.input_bound).toBeGreaterThanOrEqual(m.input_tokens);
      expect(m.input_tokens + m.output_tokens).toBeLessThanOrEqual(m.context_window);
    }
    expect(later.map((m) => m.input_tokens).reduce((a, b) => a + b, 0) + measurements[0].input_tokens).toBe(env.usage?.prompt_tokens ?? line.usage.prompt_tokens);

    ctx.router.reset();
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: CLAIMS });
    await checkedTurn(ctx.hub.url, SMALL_CHART);
    expect(paths(ctx.router).filter((p) => p === '/tokenize' || p === '/apply-template')).toEqual([]);
    expect(counts(ctx.router)).toBe(1);
  });

  test('prompts the bound cannot prove are counted exactly before their call', async () => {
    scriptChecked(ctx.router, { answer: 'The weight is 55 kg [1].', citations: [1], claims: ['Metformin 500 mg was ordered [2].'] });
    // 365 records: each stage prompt has more bytes than the 20,480-token input limit, though it fits in tokens.
    await checkedTurn(ctx.hub.url, `Patient records (most recent first):\n${syntheticChart(365)}`);
    const [line] = (await traceLines(ctx.hub)).slice(-1);
    const measurements = line.exact_request_budgets.measurements as Array<Record<string, any>>;
    expect(measurements.length).toBe(ctx.router.chatRequests().length);
    for (const m of measurements) expect(m).not.toHaveProperty('method');
    expect(counts(ctx.router)).toBeGreaterThanOrEqual(measurements.length);
  });
});

describe('a template whose turn markers are special tokens (Gemma 4): later stages stand on the Answer\'s count (decision 27)', () => {
  const ctx = useRouterAndHub({ models: MODELS, env: ENV, template: 'gemma4' });
  const CHART_365 = `Patient records (most recent first):\n${syntheticChart(365)}`;

  test('a clean 365-record checked turn makes at most 7 router requests: the Answer\'s count and one call per stage', async () => {
    scriptChecked(ctx.router, { answer: 'The weight is 55 kg [1].', citations: [1], claims: ['Metformin 500 mg was ordered [2].'] });
    await checkedTurn(ctx.hub.url, CHART_365); // the first turn also asks the per-model probes
    ctx.router.reset();
    scriptChecked(ctx.router, { answer: 'The weight is 55 kg [1].', citations: [1], claims: ['Metformin 500 mg was ordered [2].'] });
    const env = await checkedTurn(ctx.hub.url, CHART_365);
    expect(env.answerValidation.status).toBe('checked');
    const chats = ctx.router.chatRequests();
    expect(chats.length).toBe(6);
    expect(paths(ctx.router)).toEqual([...Array(1).fill('/v1/chat/completions/input_tokens'), ...chats.map(() => '/v1/chat/completions')]);
    expect(ctx.router.requests.length).toBeLessThanOrEqual(7);
    // Every stage opens with the same context message, alone; its own text is a second user message.
    const first = chats[0].body.messages[0].content;
    for (const chat of chats) {
      expect(chat.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'user']);
      expect(chat.body.messages[0].content).toBe(first);
    }
    const [line] = (await traceLines(ctx.hub)).slice(-1);
    const [answer, ...later] = line.exact_request_budgets.measurements as Array<Record<string, any>>;
    expect(answer).not.toHaveProperty('method');
    expect(later.length).toBe(5);
    for (const m of later) {
      expect(m).toMatchObject({ method: 'byte_bound', input_bound_basis: 'answer_count' });
      // Sound: the router's own count of the prompt never exceeds the bound that let it skip its count.
      expect(m.input_tokens).toBeLessThanOrEqual(m.input_bound);
      expect(m.input_bound + m.output_tokens).toBeLessThanOrEqual(m.context_window);
      // Tighter than the bytes: the whole prompt has more bytes than the input limit.
      expect(m.input_bound).toBeLessThan(Buffer.byteLength(first, 'utf8'));
    }
  });

  test('a stage whose bound overflows the window is counted exactly before its call', async () => {
    // A 24 KB question is in every stage's own text: the Answer's count plus those bytes exceed the input limit,
    // though each prompt fits in tokens.
    const question = `${'How has the weight changed? '.repeat(900)}`.trim();
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: CLAIMS });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-checked', messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: question }] });
    expect(res.status).toBe(200);
    const [line] = (await traceLines(ctx.hub)).slice(-1);
    const [, ...later] = line.exact_request_budgets.measurements as Array<Record<string, any>>;
    expect(later.length).toBe(ctx.router.chatRequests().length - 1);
    for (const m of later) {
      expect(m).not.toHaveProperty('method');
      expect(m.input_tokens + m.output_tokens).toBeLessThanOrEqual(m.context_window);
    }
    expect(counts(ctx.router)).toBe(1 + later.length);
  });
});

describe('HUB_FIT_PROOF=exact', () => {
  const ctx = useRouterAndHub({ models: MODELS, env: { ...ENV, HUB_FIT_PROOF: 'exact' } });

  test('every guarded call is counted before it is sent, and no probe is made', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: CLAIMS });
    await checkedTurn(ctx.hub.url, SMALL_CHART);
    expect(counts(ctx.router)).toBe(ctx.router.chatRequests().length);
    expect(paths(ctx.router).filter((p) => p === '/tokenize' || p === '/apply-template')).toEqual([]);
    const [line] = await traceLines(ctx.hub);
    for (const m of line.exact_request_budgets.measurements) expect(m).not.toHaveProperty('method');
  });
});
