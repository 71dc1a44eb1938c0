import fs from 'node:fs';
import path from 'node:path';
import { FakeRouter } from '../support/fake-router';
import { postJson, SMALL_CHART, startTestHub, traceLines } from '../support/hub';
import type { RunningHub } from '../../server/main';

const LEG = 'answer:gemma-4-12b~off~temp0';
const ANSWER = JSON.stringify({ answer: 'Weight is 71 kg [2].', citations: [2], blocks: [] });
const body = (q: string, extra: Record<string, unknown> = {}) => ({ model: LEG, messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: q }], ...extra });

describe('per-turn trace ($TEAM_TRACE_DIR/trace.jsonl)', () => {
  let router: FakeRouter;
  let hub: RunningHub;
  beforeAll(async () => {
    router = new FakeRouter({ models: ['gemma-4-12b'], apiKey: 'router-secret-key' });
    await router.start();
    hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, LLM_API_KEY: 'router-secret-key', ROUTER_MAX_QUEUE: '256' });
  });
  afterAll(async () => {
    await hub.close();
    await router.stop();
  });
  beforeEach(() => router.reset());

  test('a completed turn: one line with correlation, context_view.v1, stage timings and usage; file mode 0600; no secrets', async () => {
    router.script({ content: ANSWER, usage: { prompt_tokens: 50, completion_tokens: 9 } });
    const before = (await traceLines(hub)).length;
    const res = await postJson(`${hub.url}/v1/chat/completions`, body('What is the weight?', { context: { session: 's-1', request_id: 'r-1', message_id: '  ' } }), { headers: { 'x-request-id': 'hub-req-1' } });
    expect(res.status).toBe(200);
    const lines = await traceLines(hub);
    expect(lines).toHaveLength(before + 1);
    const t = lines[lines.length - 1];
    expect(t).toMatchObject({
      level_id: LEG,
      request_id: 'hub-req-1',
      question: 'What is the weight?',
      correlation: { session: 's-1', request_id: 'r-1' },
      outcome: { status: 'completed', stopped_at: null },
      answer_text: 'Weight is 71 kg [2].',
      usage: { prompt_tokens: 50, completion_tokens: 9, total_tokens: 59 },
      router_slot_evidence: { acquisitions: 1, releases: 1, active: 0 },
    });
    expect(t.correlation.message_id).toBeUndefined();
    expect(t.context).toMatchObject({ schema_version: 'context_view.v1', selection_mode: 'full', ledger_records: 5, sources: ['inline'] });
    expect(t.steps.filter((s: { role: string }) => s.role === 'stage_timing').map((s: { stage: string }) => s.stage)).toEqual(['context', 'answer', 'gate']);
    const file = path.join(hub.traceDir, 'trace.jsonl');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).not.toContain('router-secret-key');
  });

  test('a failed turn is traced with its error code and where it stopped', async () => {
    router.script({ status: 500, errorBody: { error: { code: 500, message: 'boom', type: 'server_error' } } });
    const res = await postJson(`${hub.url}/v1/chat/completions`, body('fails'));
    expect(res.status).toBe(502);
    const t = (await traceLines(hub)).pop()!;
    expect(t.outcome).toEqual({ status: 'failed', code: 'router_error', stopped_at: 'answer' });
  });

  test('a cancelled turn is traced as cancelled at the stage that was running', async () => {
    router.script({ fault: 'hang' });
    const ac = new AbortController();
    const pending = postJson(`${hub.url}/v1/chat/completions`, body('hangs'), { signal: ac.signal }).catch((e: Error) => e);
    while (router.openChats === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    await pending;
    await router.waitIdle(2000);
    let t: Record<string, any> | undefined;
    for (let i = 0; i < 100 && t?.question !== 'hangs'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      t = (await traceLines(hub)).pop();
    }
    expect(t!.outcome).toEqual({ status: 'cancelled', stopped_at: 'answer' });
    expect(t!.router_slot_evidence).toEqual({ acquisitions: 1, releases: 1, active: 0 });
  });

  test('200 concurrent turns write 200 whole lines, each valid JSON', async () => {
    router.script({ content: ANSWER });
    const before = (await traceLines(hub)).length;
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => postJson(`${hub.url}/v1/chat/completions`, body(`concurrent question ${i}`))));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const lines = await traceLines(hub); // JSON.parse of every line would throw on an interleaved one
    const mine = lines.slice(before).map((l) => l.question).sort();
    expect(mine).toEqual(Array.from({ length: 200 }, (_, i) => `concurrent question ${i}`).sort());
  });
});
