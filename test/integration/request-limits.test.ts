/**
 * Errors found by fuzzing, pinned: a product request the hub cannot serve is said as an error (not
 * a fallback answer), and a context overflow after the Answer was shown settles the turn with that
 * Answer kept and nothing left pending (decisions 2 and 3).
 */
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { MARK } from '../support/checkers';
import { postJson, SMALL_CHART, useRouterAndHub } from '../support/hub';

describe('request limits and late overflow on product profiles', () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10', HUB_MAX_CHART_RECORDS: '3' } });

  test('a chart over HUB_MAX_CHART_RECORDS: 400 blocking, event: error streaming — never a fallback answer', async () => {
    const messages = [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'Weight?' }];
    const blocking = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages });
    expect(blocking.status).toBe(400);
    expect(((await blocking.json()) as any).detail.code).toBe('invalid_request_error');
    const stream = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages, stream: true });
    const parsed = parseChartSearchStream(await stream.text());
    expect(parsed.events.map((e) => e.name)).toEqual(['error']);
    expect(parsed.events[0].data).toMatchObject({ code: 'invalid_request_error' });
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });

  test('a body nested deeper than 64 levels is refused with a 400 naming the field (read from its bytes, before the parse)', async () => {
    const deep = `{"model":"single-12b-bare","messages":[{"role":"user","content":"x"}],"patient":${'['.repeat(100_000)}1${']'.repeat(100_000)}}`;
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, deep);
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error).toMatchObject({ code: 'invalid_request_error', param: 'patient' });
    expect(body.detail.message).toContain("'patient' nests arrays and objects more than 64 levels deep");
    // The hub is still serving.
    expect((await fetch(`${ctx.hub.url}/health`)).status).toBe(200);
  });

  test('a catalyst query profile through chat completions: a clear 400, no model call', async () => {
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'catalyst-query-e4b-qwen14b', messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(400);
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });
});

describe('an In-Depth prompt that no longer fits after a long Answer', () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10' } });
  const chart = ['Patient records (most recent first):', '[1] (2026-03-02) Finding — Weight (kg): 71 kg'].join('\n');
  const long = Array.from({ length: 6000 }, () => 'The latest weight is 71 kg [1].').join(' ');

  test('the stream ends with done: the Answer kept, In-Depth settled as not generated', async () => {
    ctx.router.script({ match: { contains: MARK.inDepth }, content: '{"claims":[]}' }, { content: JSON.stringify({ answer: long, citations: [1], blocks: [] }) });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', stream: true, messages: [{ role: 'user', content: chart }, { role: 'user', content: 'Weight?' }] });
    const parsed = parseChartSearchStream(await res.text());
    expect(parsed.settled).toEqual([]);
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'indepth_pending', 'done']);
    const done = parsed.events.at(-1)!.data as Record<string, any>;
    expect(done.answer).toBe(long);
    expect(done.inDepth).toMatchObject({ status: 'needs_review', error: 'In-Depth was not generated.' });
    expect(ctx.router.chatRequests().filter((r) => JSON.stringify(r.body).includes(MARK.inDepth))).toHaveLength(0);
  });
});
