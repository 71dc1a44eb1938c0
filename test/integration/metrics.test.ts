/** `GET /metrics` (decision 13): Prometheus text with bounded labels and no patient text. */
import { postJson, SMALL_CHART, useRouterAndHub } from '../support/hub';

const ANSWER = JSON.stringify({ answer: 'The latest weight is 71 kg [2].', citations: [2], blocks: [] });

function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `) ? want.every((w) => l.includes(w)) : false);
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : NaN;
}

describe('GET /metrics', () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10' } });

  test('request duration, time to answer_done, stage durations, router wait and tokens, errors by code', async () => {
    ctx.router.script({ match: { contains: 'DIRECT ANSWER' }, content: '{"claims":[]}' }, { content: ANSWER });
    const stream = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-bare', stream: true, messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'Latest weight?' }] });
    await stream.text();
    const blocking = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-fast', messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'Latest weight?' }] });
    expect(blocking.status).toBe(200);
    expect((await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'no-such-model-x1', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(404);
    await fetch(`${ctx.hub.url}/some/random/path/with-patient-123`);

    const res = await fetch(`${ctx.hub.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(sample(text, 'hub_answer_done_seconds_count', { profile: 'single-12b-bare' })).toBe(1);
    expect(sample(text, 'hub_answer_done_seconds_count', { profile: 'single-12b-fast' })).toBe(1);
    expect(sample(text, 'hub_stage_duration_seconds_count', { stage: 'answer', status: 'completed' })).toBe(2);
    expect(sample(text, 'hub_stage_duration_seconds_count', { stage: 'indepth', status: 'completed' })).toBe(1);
    expect(sample(text, 'hub_request_duration_seconds_count', { route: '/v1/chat/completions', method: 'POST', status: '200' })).toBe(2);
    expect(sample(text, 'hub_request_duration_seconds_count', { route: 'other', status: '404' })).toBe(1);
    expect(sample(text, 'hub_errors_total', { code: 'model_not_found' })).toBe(1);
    expect(sample(text, 'hub_router_wait_seconds_count')).toBe(3); // two Answers and one In-Depth
    expect(sample(text, 'hub_tokens_total', { direction: 'in' })).toBeGreaterThan(0);
    expect(sample(text, 'hub_tokens_total', { direction: 'out' })).toBeGreaterThan(0);
    expect(sample(text, 'hub_router_queue_depth')).toBe(0);
    expect(sample(text, 'hub_router_in_flight')).toBe(0);
    expect(text).toContain('hub_process_resident_memory_bytes');
    expect(text).toContain('hub_nodejs_eventloop_lag_seconds');
    // Bounded labels, no request content: neither the unknown model, the path, nor chart text appears.
    for (const secret of ['no-such-model-x1', 'with-patient-123', 'Penicillin', 'Latest weight']) expect(text).not.toContain(secret);
  });
});
