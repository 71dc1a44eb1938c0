import { FakeRouter } from '../support/fake-router';
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { postJson, SMALL_CHART, traceLines, useRouterAndHub } from '../support/hub';
import type { RunningHub } from '../../server/main';

const CHART = SMALL_CHART;
const QUESTION = 'How has the weight changed?';
const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
const CLAIMS = ['The most recent weight, 71 kg, was recorded at the 2026-03-02 visit [2].', 'A penicillin allergy with rash is documented [5].'];
const messages = [{ role: 'user', content: CHART }, { role: 'user', content: QUESTION }];

function script(router: FakeRouter, opts: { answer?: string; claims?: string[] | string } = {}) {
  const claims = opts.claims ?? CLAIMS;
  router.script(
    { match: { contains: 'DIRECT ANSWER' }, content: typeof claims === 'string' ? claims : JSON.stringify({ claims }) },
    { content: JSON.stringify({ answer: opts.answer ?? ANSWER, citations: [3, 2], blocks: [] }) },
  );
}

async function stream(hub: RunningHub, body: Record<string, unknown>): Promise<{ raw: string; res: Response }> {
  const res = await postJson(`${hub.url}/v1/chat/completions`, { ...body, stream: true });
  return { raw: await res.text(), res };
}

describe('single-12b-bare end to end', () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10' } });

  test('streams exactly answer_done, indepth_pending, indepth_done, done with complete envelopes', async () => {
    script(ctx.router);
    const { raw, res } = await stream(ctx.hub, { model: 'single-12b-bare', messages, context: { require_product_profile: true, session: 's', request_id: 'r' } });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const parsed = parseChartSearchStream(raw);
    expect(parsed.error).toBeNull();
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'indepth_pending', 'indepth_done', 'done']);
    expect(parsed.settled).toEqual([]);
    for (const e of parsed.events) {
      expect(typeof e.data.answer).toBe('string');
      expect(e.data).not.toHaveProperty('status');
      expect(typeof e.data.inDepth).toBe('object');
      for (const key of ['references', 'blocks', 'model', 'confidence', 'answerValidation', 'temporalGate', 'context', 'safetyStatus', 'drug_safety']) expect(e.data).toHaveProperty(key);
    }
    const [answerDone, pending, indepthDone, done] = parsed.events.map((e) => e.data as Record<string, any>);
    expect(answerDone.answer).toBe(ANSWER);
    // Deterministic checks only (no review, no grounding): the fast Answer is already settled.
    expect(answerDone.answerValidation.status).toBe('checked');
    expect(answerDone.inDepth.status).toBe('pending');
    expect(answerDone.references.map((r: { index: number }) => r.index)).toEqual([3, 2]);
    expect(answerDone.references[0]).toMatchObject({ sourceId: 'inline:3', resolutionStatus: 'resolved', groundingStatus: 'unchecked', grounded: null, resourceType: 'ChartRecord' });
    expect(answerDone.references[0].usage).toEqual([{ location: 'answer', text: ANSWER }]);
    expect(pending.answerValidation.status).toBe('checked');
    expect(pending.references.every((r: { groundingStatus: string }) => r.groundingStatus === 'unchecked')).toBe(true);
    expect(indepthDone.inDepth).toMatchObject({ status: 'complete', error: '' });
    expect(indepthDone.inDepth.answer).toContain('A penicillin allergy with rash is documented [5].');
    expect(done.inDepth).toEqual(indepthDone.inDepth);
    expect(done.model).toBe('single-12b-bare');
    expect(done.safetyStatus).toBe('unavailable');
    expect(done.drug_safety.status).toBe('unavailable');
    expect(done.temporalGate.status).toBe('pass');
    expect(done.references.map((r: { index: number }) => r.index).sort()).toEqual([2, 3, 5]);
    expect(parsed.turns).toEqual(['turn_started', 'answer_done', 'indepth_pending', 'indepth_done', 'turn_done']);
  });

  test('done equals the blocking envelope for the same request (apart from timestamps)', async () => {
    script(ctx.router);
    const { raw } = await stream(ctx.hub, { model: 'single-12b-bare', messages });
    const done = parseChartSearchStream(raw).events.at(-1)!.data as Record<string, any>;
    ctx.router.reset();
    script(ctx.router);
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    const envelope = JSON.parse(body.choices[0].message.content);
    const strip = (x: any) => JSON.parse(JSON.stringify(x, (k, v) => (k === 'completedAt' ? undefined : v)));
    const { citations, ...rest } = envelope;
    expect(citations).toEqual([3, 2]);
    expect(strip(rest)).toEqual(strip(done));
    expect(body.usage.total_tokens).toBeGreaterThan(0);
    expect(ctx.router.chatRequests()).toHaveLength(2);
  });

  test('single-12b-fast streams answer_done then done, with no inDepth key anywhere', async () => {
    script(ctx.router);
    const { raw } = await stream(ctx.hub, { model: 'single-12b-fast', messages });
    const parsed = parseChartSearchStream(raw);
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'done']);
    for (const e of parsed.events) expect(e.data).not.toHaveProperty('inDepth');
    // Nothing is pending after the deterministic checks: done repeats answer_done exactly.
    expect(parsed.events[1].data).toEqual(parsed.events[0].data);
    expect(parsed.turns).toEqual(['turn_started', 'answer_done', 'turn_done']);
  });

  test('an unresolved citation makes the Answer needs_review and red', async () => {
    script(ctx.router, { answer: 'Weight is 71 kg [2] and 90 kg [42].' });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages });
    const env = JSON.parse(((await res.json()) as any).choices[0].message.content);
    expect(env.answerValidation.status).toBe('needs_review');
    expect(env.confidence.answer.level).toBe('red');
    expect(env.answerValidation.issues.some((i: { id: string }) => i.id === 'citation_resolution')).toBe(true);
    expect(env.references.find((r: { index: number }) => r.index === 42)).toMatchObject({ resolutionStatus: 'unresolved', groundingStatus: 'unchecked' });
  });

  test('a non-substantive answer is written again, then falls back; In-Depth is withheld', async () => {
    ctx.router.script({ content: '{"answer":"","citations":[],"blocks":[]}' });
    const { raw } = await stream(ctx.hub, { model: 'single-12b-bare', messages });
    const parsed = parseChartSearchStream(raw);
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'indepth_pending', 'indepth_error', 'done']);
    const done = parsed.events.at(-1)!.data as Record<string, any>;
    expect(done.answer).toBe('I could not produce a complete answer for this turn. Please try again.');
    expect(done.inDepth.status).toBe('needs_review');
    expect(done.inDepth.error).toContain('not substantive');
    expect(done.answerValidation.status).toBe('needs_review');
    expect(ctx.router.chatRequests()).toHaveLength(2); // first draft + one re-synthesis, no In-Depth call
  });

  test('an honest empty In-Depth is complete with no claims', async () => {
    script(ctx.router, { claims: [] });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages });
    const env = JSON.parse(((await res.json()) as any).choices[0].message.content);
    expect(env.inDepth).toMatchObject({ status: 'complete', answer: '', error: '' });
  });

  test('In-Depth output that is not JSON ends in a settled, honest envelope', async () => {
    script(ctx.router, { claims: 'not json at all' });
    const { raw } = await stream(ctx.hub, { model: 'single-12b-bare', messages });
    const parsed = parseChartSearchStream(raw);
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'indepth_pending', 'indepth_error', 'done']);
    expect(parsed.settled).toEqual([]);
    expect((parsed.events.at(-1)!.data as any).answer).toBe(ANSWER);
  });

  test('a router failure during In-Depth keeps the emitted Answer (late failure)', async () => {
    ctx.router.script({ match: { contains: 'DIRECT ANSWER' }, status: 500, errorBody: { error: { code: 500, message: 'boom', type: 'server_error' } } }, { content: JSON.stringify({ answer: ANSWER, citations: [3, 2], blocks: [] }) });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages });
    expect(res.status).toBe(200);
    const env = JSON.parse(((await res.json()) as any).choices[0].message.content);
    expect(env.answer).toBe(ANSWER);
    expect(env.confidence.answer).toEqual({ level: 'red', note: 'The hub could not safely complete the remaining checks.' });
    expect(env.answerValidation.status).toBe('needs_review');
    expect(env.inDepth).toMatchObject({ status: 'needs_review', answer: '', error: 'In-Depth was not generated.' });
    expect((await traceLines(ctx.hub)).pop()!.steps.some((s: { role: string }) => s.role === 'pipeline_error')).toBe(true);
  });

  test('a router failure before any Answer ends in a fallback done with every envelope key', async () => {
    ctx.router.script({ status: 500, errorBody: { error: { code: 500, message: 'boom', type: 'server_error' } } });
    const { raw } = await stream(ctx.hub, { model: 'single-12b-bare', messages });
    const parsed = parseChartSearchStream(raw);
    expect(parsed.events.map((e) => e.name)).toEqual(['done']);
    const done = parsed.events[0].data as Record<string, any>;
    for (const key of ['answer', 'references', 'blocks', 'model', 'confidence', 'answerValidation', 'temporalGate', 'inDepth', 'context', 'safetyStatus', 'drug_safety']) expect(done).toHaveProperty(key);
    expect(done.temporalGate.applied).toBe('fallback');
    expect(done.inDepth.status).toBe('failed');
    expect(parsed.settled).toEqual([]);
  });

  test('a context error streams event: error; blocking gets the HTTP error', async () => {
    const body = { model: 'single-12b-bare', messages: [{ role: 'user', content: 'What is the weight?' }], context: { source: 'inline' } };
    const { raw, res } = await stream(ctx.hub, body);
    expect(res.status).toBe(200);
    const parsed = parseChartSearchStream(raw);
    expect(parsed.events.map((e) => e.name)).toEqual(['error']);
    expect(parsed.events[0].data).toEqual({ code: 'context_source_unavailable', source: 'inline', message: expect.any(String) });
    const blocking = await postJson(`${ctx.hub.url}/v1/chat/completions`, body);
    expect(blocking.status).toBe(503);
    expect(((await blocking.json()) as any).detail.code).toBe('context_source_unavailable');
  });

  test('a correct trend shows a passing gate; a swapped one is patched with the first draft kept', async () => {
    script(ctx.router, { answer: 'Weight was 71 kg on 2026-01-10 [3] and 74 kg on 2026-03-02 [2].' });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages });
    const env = JSON.parse(((await res.json()) as any).choices[0].message.content);
    expect(env.temporalGate.applied).toBe('patch');
    expect(env.answerValidation.status).toBe('edited');
    expect(env.answerValidation.originalAnswer).toBe('Weight was 71 kg on 2026-01-10 [3] and 74 kg on 2026-03-02 [2].');
    expect(env.answerValidation.originalReferences[0].usage[0].location).toBe('answer_review_draft');
    expect(env.confidence.answer.level).toBe('yellow');
  });
});

describe('single-12b-bare with awkward model output', () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10', HUB_SSE_HEARTBEAT_SECONDS: '0.1' } });

  test.each([
    ['not JSON', 'The weight went down.'],
    ['empty', ''],
    ['truncated mid-string', '{"answer":"Weight decreased from 74 kg on 2026-01-'],
  ])('an Answer reply that is %s is written again, then falls back, never crashing the stream', async (_name, reply) => {
    ctx.router.script({ match: { contains: 'DIRECT ANSWER' }, content: '{"claims":[]}' }, { content: reply });
    const raw = await (await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', stream: true, messages })).text();
    const parsed = parseChartSearchStream(raw);
    expect(parsed.error).toBeNull();
    expect(parsed.settled).toEqual([]);
    const done = parsed.events.at(-1)!;
    expect(done.name).toBe('done');
    expect((done.data as any).answer).toBe('I could not produce a complete answer for this turn. Please try again.');
    expect((done.data as any).answerValidation.status).toBe('needs_review');
  });

  test('In-Depth claims citing records outside the chart are marked red and never enter references', async () => {
    script(ctx.router, { claims: ['The weight is 71 kg [2].', 'An HbA1c of 7.1% is on file [99].'] });
    const env = JSON.parse(((await (await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages })).json()) as any).choices[0].message.content);
    expect(env.inDepth.answer).toContain('An HbA1c of 7.1% is on file [99].');
    expect(env.inDepth.validation.marked).toEqual([expect.objectContaining({ claim_index: 2, check: 'citation_outside_chart', level: 'red' })]);
    expect(env.references.some((r: { index: number }) => r.index === 99)).toBe(false);
    expect(env.confidence.in_depth.level).toBe('yellow');
  });

  test('heartbeats flow while a stage is silent', async () => {
    ctx.router.script({ match: { contains: 'DIRECT ANSWER' }, content: JSON.stringify({ claims: CLAIMS }), delayMs: 350 }, { content: JSON.stringify({ answer: ANSWER, citations: [], blocks: [] }), delayMs: 350 });
    const raw = await (await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', stream: true, messages })).text();
    const parsed = parseChartSearchStream(raw);
    expect(parsed.heartbeats).toBeGreaterThanOrEqual(4);
    expect(raw.indexOf(': hb')).toBeLessThan(raw.indexOf('event: answer_done'));
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'indepth_pending', 'indepth_done', 'done']);
  });
});
