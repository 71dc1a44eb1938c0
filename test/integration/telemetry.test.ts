/**
 * OpenTelemetry spans (issue 32): a hub with OTEL_EXPORTER_OTLP_ENDPOINT pointed at an in-process OTLP/HTTP
 * receiver. One trace per turn — an `invoke_agent` root, its stages as children, a `chat {model}` span per
 * model call with the GenAI attributes and the router's usage — and, in every byte the receiver got, none
 * of the chart's records, the question or the model's answer.
 */
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { CLEAN_INDEPTH_REVIEW, CLEAN_REVIEW, factChecker, found, isCall, MARK } from '../support/checkers';
import { FakeRouter, type RecordedRequest, type ScriptedReply } from '../support/fake-router';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config';
import { startHub } from '../../server/main';
import { postJson, ROOT, SMALL_CHART, startTestHub, traceLines } from '../support/hub';
import { runProcess } from '../support/run-process';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import type { RunningHub } from '../../server/main';

const QUESTION = 'How has the weight changed since January?';
const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
const CLAIMS = ['The most recent weight, 71 kg, was recorded at the 2026-03-02 visit [2].', 'A penicillin allergy with rash is documented [5].'];
const messages = (question = QUESTION) => [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: question }];
const LEG = 'answer:gemma-4-12b~off~temp0';

/** Distinct usage per kind of call, so each span's figures can be told from any other's. */
const USAGE = {
  answer: { prompt_tokens: 1101, completion_tokens: 101 },
  review: { prompt_tokens: 1202, completion_tokens: 102 },
  grounding: { prompt_tokens: 1303, completion_tokens: 103 },
  inDepth: { prompt_tokens: 1404, completion_tokens: 104 },
  inDepthReview: { prompt_tokens: 1505, completion_tokens: 105 },
};
type Kind = keyof typeof USAGE;

function kindOf(req: RecordedRequest): Kind {
  if (isCall(req, 'grounding')) return 'grounding';
  if (isCall(req, 'inDepthReview')) return 'inDepthReview';
  if (isCall(req, 'answerReview')) return 'review';
  if (isCall(req, 'inDepth')) return 'inDepth';
  return 'answer';
}

/** A checked turn whose every reply carries its kind's usage (first match wins, as in scriptChecked). */
function scriptTurn(router: FakeRouter, extra: ScriptedReply[] = []): void {
  router.script(
    ...extra,
    { match: { contains: MARK.grounding }, reply: factChecker((p) => [found(p.statement)]), usage: USAGE.grounding },
    { match: { contains: MARK.inDepthReview }, content: CLEAN_INDEPTH_REVIEW, usage: USAGE.inDepthReview },
    { match: { contains: MARK.answerReview }, content: CLEAN_REVIEW, usage: USAGE.review },
    { match: { contains: MARK.inDepth }, content: JSON.stringify({ claims: CLAIMS }), usage: USAGE.inDepth },
    { content: JSON.stringify({ answer: ANSWER, citations: [3, 2], blocks: [] }), usage: USAGE.answer },
  );
}

/** The text no export may carry: every chart record's content, the question, the answer and its claims. */
const PATIENT_TEXT = [
  ...SMALL_CHART.split('\n').slice(1).map((line) => line.replace(/^\[\d+\] (\(\d{4}-\d{2}-\d{2}\) )?/, '')),
  'Penicillin',
  'Weight (kg)',
  QUESTION,
  ANSWER,
  'Weight decreased',
  ...CLAIMS,
];

/**
 * The spans of one trace, by parent: the root, its stages in plan order (`hub.stage.index`: the SDK stamps a
 * span's start to the millisecond, too coarse to order them by time), and each span's children.
 */
function traceOf(spans: ReceivedSpan[], root: ReceivedSpan) {
  const mine = spans.filter((s) => s.traceId === root.traceId);
  const children = (parent: ReceivedSpan) => mine.filter((s) => s.parentSpanId === parent.spanId);
  const stages = children(root).sort((a, b) => Number(a.attributes['hub.stage.index']) - Number(b.attributes['hub.stage.index']));
  return { mine, stages, children };
}

/** A span ends by another's end, give or take the millisecond the SDK's start stamp may have dropped (its end is start + duration). */
const endsBy = (span: ReceivedSpan, limit: ReceivedSpan) => BigInt(span.endTimeUnixNano) <= BigInt(limit.endTimeUnixNano) + 1_000_000n;

describe('OpenTelemetry spans over OTLP/HTTP', () => {
  let receiver: OtlpReceiver;
  let router: FakeRouter;
  let hub: RunningHub;
  beforeAll(async () => {
    receiver = new OtlpReceiver();
    await receiver.start();
    router = new FakeRouter({ models: ['gemma-4-12b', 'qwen3.5-9b'] });
    await router.start();
    hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, HUB_ANCHOR: '2026-03-10', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.baseUrl, OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20otlp-secret', OTEL_SERVICE_NAME: 'hub-under-test' });
  });
  afterAll(async () => {
    try {
      await hub?.close();
    } finally {
      await router?.stop();
      await receiver?.stop();
    }
  });
  beforeEach(() => router.reset());

  test('a staged checked turn, a blocking one and a leg: one trace each, stages as children, GenAI model-call spans, no patient text', async () => {
    scriptTurn(router);
    const staged = await postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-checked', stream: true, messages: messages() }, { headers: { 'x-request-id': 'otel-staged' } });
    const events = parseChartSearchStream(await staged.text()).events.map((e) => e.name);
    expect(events).toEqual(['answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'done']);
    const stagedCalls = router.chatRequests().map(kindOf);
    router.reset();
    scriptTurn(router);
    const blocking = await postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-checked', messages: messages() }, { headers: { 'x-request-id': 'otel-blocking' } });
    expect(blocking.status).toBe(200);
    const blockingCalls = router.chatRequests().map(kindOf);
    router.reset();
    router.script({ content: JSON.stringify({ answer: ANSWER, citations: [3, 2], blocks: [] }), usage: USAGE.answer });
    const leg = await postJson(`${hub.url}/v1/chat/completions`, { model: LEG, messages: messages() }, { headers: { 'x-request-id': 'otel-leg' } });
    expect(leg.status).toBe(200);
    // A stream's turn ends its span just after the response's last byte: wait for the turns to have unwound.
    while (hub.activeTurns() > 0) await new Promise((r) => setTimeout(r, 5));
    await hub.telemetry.flush();

    const spans = receiver.spans();
    const roots = spans.filter((s) => s.parentSpanId === '');
    expect(roots.map((r) => r.attributes['hub.request.id']).sort()).toEqual(['otel-blocking', 'otel-leg', 'otel-staged']);
    // One trace per turn: three distinct trace ids, and every span belongs to one of them.
    expect(new Set(roots.map((r) => r.traceId)).size).toBe(3);
    expect(spans.every((s) => roots.some((r) => r.traceId === s.traceId))).toBe(true);
    expect(receiver.headers.every((h) => h.authorization === 'Bearer otlp-secret')).toBe(true);

    const lines = await traceLines(hub);
    for (const [id, calls] of [
      ['otel-staged', stagedCalls],
      ['otel-blocking', blockingCalls],
    ] as const) {
      // The stages the engine ran, in order, as the turn's trace line records them.
      const plan = lines.find((l) => l.request_id === id)!.steps.filter((st: { role: string }) => st.role === 'stage_timing').map((st: { stage: string }) => st.stage);
      expect(plan).toEqual(expect.arrayContaining(['context', 'answer', 'review', 'indepth', 'indepth_gate']));
      const root = roots.find((r) => r.attributes['hub.request.id'] === id)!;
      expect(root.name).toBe('invoke_agent single-12b-checked');
      expect(root.kind).toBe(2);
      expect(root.resource['service.name']).toBe('hub-under-test');
      expect(root.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'single-12b-checked', 'gen_ai.provider.name': 'llama.cpp', 'gen_ai.request.model': 'gemma-4-12b', 'hub.turn.kind': 'product', 'hub.outcome': 'completed' });
      expect(root.status.code).not.toBe(2);
      const { mine, stages, children } = traceOf(spans, root);
      // The In-Depth part runs after answer_done was streamed: its stages are inside the turn's span all the same.
      expect(stages.map((s) => s.attributes['hub.stage.name'])).toEqual(plan);
      expect(stages.map((s) => s.attributes['hub.stage.index'])).toEqual(stages.map((_, i) => i));
      // The root ended after the last of them (In-Depth included): the turn's span lasts as long as the turn.
      expect(stages.every((s) => s.name === `stage ${s.attributes['hub.stage.name']}` && s.kind === 1 && endsBy(s, root))).toBe(true);
      expect(root.attributes['hub.turn.stages']).toBe(stages.length);
      const chats = mine.filter((s) => s.name.startsWith('chat '));
      // Every model call is a child of a stage, never of the root or of another call.
      expect(chats.every((c) => stages.some((st) => st.spanId === c.parentSpanId))).toBe(true);
      expect(chats.length).toBe(calls.length);
      expect(root.attributes['hub.turn.model_calls']).toBe(calls.length);
      expect(children(stages.find((s) => s.attributes['hub.stage.name'] === 'answer')!).map((c) => c.name)).toEqual(['chat gemma-4-12b']);
      for (const c of chats) {
        expect(c.kind).toBe(3);
        expect(c.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'llama.cpp', 'gen_ai.request.model': c.name.slice(5), 'gen_ai.response.model': c.name.slice(5), 'gen_ai.response.finish_reasons': ['stop'] });
        expect(typeof c.attributes['gen_ai.request.max_tokens']).toBe('number');
        expect(typeof c.attributes['gen_ai.request.temperature']).toBe('number');
      }
      // The figures are the router's: the multiset of (input, output) per call equals what was scripted per call.
      const seen = chats.map((c) => `${c.attributes['gen_ai.usage.input_tokens']}/${c.attributes['gen_ai.usage.output_tokens']}`).sort();
      expect(seen).toEqual(calls.map((k) => `${USAGE[k].prompt_tokens}/${USAGE[k].completion_tokens}`).sort());
      const sum = (f: 'prompt_tokens' | 'completion_tokens') => calls.reduce((n, k) => n + USAGE[k][f], 0);
      expect(root.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': sum('prompt_tokens'), 'gen_ai.usage.output_tokens': sum('completion_tokens') });
    }

    const legRoot = roots.find((r) => r.attributes['hub.request.id'] === 'otel-leg')!;
    expect(legRoot.name).toBe('invoke_agent answer');
    expect(legRoot.attributes).toMatchObject({ 'hub.turn.kind': 'leg', 'hub.profile.id': LEG, 'gen_ai.request.model': 'gemma-4-12b', 'gen_ai.usage.input_tokens': 1101, 'gen_ai.usage.output_tokens': 101 });
    const legTrace = traceOf(spans, legRoot);
    expect(legTrace.stages.map((s) => s.name)).toEqual(['stage context', 'stage answer', 'stage gate']);
    const legChat = legTrace.children(legTrace.stages[1]);
    expect(legChat).toHaveLength(1);
    expect(legChat[0].attributes).toMatchObject({ 'gen_ai.request.temperature': 0, 'gen_ai.usage.input_tokens': 1101, 'gen_ai.usage.output_tokens': 101 });

    // Not one byte of patient text left the hub.
    const everything = receiver.allText();
    expect(everything.length).toBeGreaterThan(0);
    for (const text of PATIENT_TEXT) expect({ text, found: everything.includes(text) }).toEqual({ text, found: false });
    expect(everything).not.toContain('71 kg');
  });

  /** Flushes the hub's spans and returns the root span of request `id` (and its trace). */
  async function rootOf(id: string): Promise<{ root: ReceivedSpan; trace: ReturnType<typeof traceOf> }> {
    await hub.telemetry.flush();
    const spans = receiver.spans();
    const root = spans.find((s) => s.attributes['hub.request.id'] === id && (s.name.startsWith('invoke_agent') || s.attributes['hub.route'] !== undefined))!;
    expect(root).toBeDefined();
    return { root, trace: traceOf(spans, root) };
  }

  test('a cancelled staged turn ends its span, the running stage and the model call with an error status', async () => {
    router.script({ fault: 'hang' });
    const ac = new AbortController();
    const before = hub.startedTurns();
    const pending = postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-checked', stream: true, messages: messages() }, { headers: { 'x-request-id': 'otel-cancelled' }, signal: ac.signal }).then((r) => r.text()).catch((e: Error) => e);
    while (router.openChats === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    await pending;
    // Settled once the turn has unwound: its trace line and its span are written by then.
    while (hub.startedTurns() === before || hub.activeTurns() > 0) await new Promise((r) => setTimeout(r, 5));
    await router.waitIdle(5000);
    const { root, trace } = await rootOf('otel-cancelled');
    expect(root.status.code).toBe(2);
    expect(root.attributes).toMatchObject({ 'hub.outcome': 'cancelled', 'error.type': 'cancelled', 'hub.turn.stopped_at': 'answer' });
    const answer = trace.stages.find((st) => st.attributes['hub.stage.name'] === 'answer')!;
    expect(answer.status.code).toBe(2);
    expect(answer.attributes['error.type']).toBe('cancelled');
    const [chat] = trace.children(answer);
    expect(chat.status.code).toBe(2);
    expect(chat.attributes['error.type']).toBe('cancelled');
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
  });

  test('a failed leg carries the catalogue code as error.type, never the error message', async () => {
    router.script({ status: 500, errorBody: { error: { code: 500, message: 'router says Penicillin broke', type: 'server_error' } } });
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: LEG, messages: messages() }, { headers: { 'x-request-id': 'otel-failed' } });
    expect(res.status).toBe(502);
    const { root, trace } = await rootOf('otel-failed');
    expect(root.status).toEqual({ code: 2, message: 'router_error' });
    expect(root.attributes).toMatchObject({ 'hub.outcome': 'failed', 'error.type': 'router_error', 'hub.turn.stopped_at': 'answer' });
    const chat = trace.mine.find((sp) => sp.name === 'chat gemma-4-12b')!;
    expect(chat.attributes['error.type']).toBe('router_error');
    expect(receiver.allText()).not.toContain('broke');
  });

  test('a product turn whose Answer call failed ends completed with its fallback, the failure on its stage and root', async () => {
    router.script({ status: 500, errorBody: { error: { code: 500, message: 'down', type: 'server_error' } } });
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-checked', messages: messages() }, { headers: { 'x-request-id': 'otel-fallback' } });
    expect(res.status).toBe(200);
    const { root, trace } = await rootOf('otel-fallback');
    expect(root.attributes).toMatchObject({ 'hub.outcome': 'completed', 'hub.turn.pipeline_error': 'router_error', 'hub.turn.stopped_at': 'answer' });
    const answer = trace.stages.find((st) => st.attributes['hub.stage.name'] === 'answer')!;
    expect(answer.status).toEqual({ code: 2, message: 'router_error' });
  });

  test("a client traceparent makes the turn its child, in the client's trace", async () => {
    router.script({ content: JSON.stringify({ answer: ANSWER, citations: [3, 2], blocks: [] }) });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: LEG, messages: messages() }, { headers: { 'x-request-id': 'otel-traceparent', traceparent: `00-${traceId}-${parent}-01` } });
    expect(res.status).toBe(200);
    const { root, trace } = await rootOf('otel-traceparent');
    expect(root.traceId).toBe(traceId);
    expect(root.parentSpanId).toBe(parent);
    expect(trace.mine.length).toBe(5);
  });

  test("a Catalyst role call and a raw generate are one chat span each, with the router's usage", async () => {
    router.script({ content: '{"sql":"SELECT 1"}', usage: { prompt_tokens: 77, completion_tokens: 7 } });
    const role = await postJson(`${hub.url}/v1/hub/query-profiles/catalyst-query-gemma-4-12b/roles/query_generate/generate`, { messages: [{ role: 'user', content: QUESTION }] }, { headers: { 'x-request-id': 'otel-role' } });
    expect(role.status).toBe(200);
    router.reset();
    router.script({ content: ANSWER, usage: { prompt_tokens: 88, completion_tokens: 8 } });
    const raw = await postJson(`${hub.url}/v1/hub/generate`, { model: 'gemma-4-12b', messages: [{ role: 'user', content: QUESTION }], max_tokens: 64, temperature: 0.3 }, { headers: { 'x-request-id': 'otel-raw' } });
    expect(raw.status).toBe(200);
    const { root: roleSpan, trace: roleTrace } = await rootOf('otel-role');
    expect(roleTrace.mine).toHaveLength(1);
    expect(roleSpan).toMatchObject({ name: 'chat gemma-4-12b', parentSpanId: '', kind: 3 });
    expect(roleSpan.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'hub.route': 'catalyst_role', 'hub.profile.id': 'catalyst-query-gemma-4-12b', 'hub.catalyst.role': 'query_generate', 'gen_ai.request.max_tokens': 1024, 'gen_ai.usage.input_tokens': 77, 'gen_ai.usage.output_tokens': 7 });
    const { root: rawSpan } = await rootOf('otel-raw');
    expect(rawSpan.attributes).toMatchObject({ 'hub.route': 'raw_generate', 'gen_ai.request.model': 'gemma-4-12b', 'gen_ai.request.max_tokens': 64, 'gen_ai.request.temperature': 0.3, 'gen_ai.usage.input_tokens': 88, 'gen_ai.usage.output_tokens': 8 });
    expect(receiver.allText()).not.toContain(QUESTION);
    expect(receiver.allText()).not.toContain('SELECT 1');
  });
});

/** A hub whose log lines the test reads (startTestHub silences them). */
async function hubWithLogs(env: Record<string, string>): Promise<{ hub: RunningHub; logs: Array<Record<string, any>>; raw: string[] }> {
  const traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-trace-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', TEAM_TRACE_DIR: traceDir, KNOWLEDGE_SOURCE: 'off', KNOWLEDGE_DB_PATH: ':memory:', ...env }, ROOT);
  const raw: string[] = [];
  const logs: Array<Record<string, any>> = [];
  const hub = await startHub(config, { logDestination: { write: (line: string) => void (raw.push(line), logs.push(JSON.parse(line))) } });
  const close = hub.close.bind(hub);
  hub.close = async () => {
    await close();
    fs.rmSync(traceDir, { recursive: true, force: true });
  };
  return { hub, logs, raw };
}

const legBody = { model: LEG, messages: messages() };
const legReply = (): ScriptedReply => ({ content: JSON.stringify({ answer: ANSWER, citations: [3, 2], blocks: [] }) });

describe('span export when the collector misbehaves, and at shutdown', () => {
  let receiver: OtlpReceiver;
  let router: FakeRouter;
  beforeAll(async () => {
    receiver = new OtlpReceiver();
    await receiver.start();
    router = new FakeRouter({ models: ['gemma-4-12b'] });
    await router.start();
  });
  afterAll(async () => {
    await router?.stop();
    await receiver?.stop();
  });

  test('shutdown exports the spans still waiting for their batch, so none is lost at exit', async () => {
    router.script(legReply());
    const { hub } = await hubWithLogs({ LLM_BASE_URL: router.baseUrl, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.baseUrl });
    try {
      const res = await postJson(`${hub.url}/v1/chat/completions`, legBody, { headers: { 'x-request-id': 'otel-at-exit' } });
      expect(res.status).toBe(200);
      await hub.shutdown(1000);
      // The batch would have left 5 s later: shutdown sent it.
      const spans = receiver.spans().filter((sp) => sp.traceId === receiver.spans().find((r) => r.attributes['hub.request.id'] === 'otel-at-exit')?.traceId);
      expect(spans.map((sp) => sp.name).sort()).toEqual(['chat gemma-4-12b', 'invoke_agent answer', 'stage answer', 'stage context', 'stage gate']);
    } finally {
      router.reset();
      fs.rmSync(hub.traceDir, { recursive: true, force: true });
    }
  });

  test('a collector that never answers neither holds nor fails a turn, and is reported once per outage', async () => {
    const { hub, logs, raw } = await hubWithLogs({ LLM_BASE_URL: router.baseUrl, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.baseUrl, OTEL_EXPORTER_OTLP_TIMEOUT: '500', OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=collector-secret' });
    const failures = () => logs.filter((l) => l.msg.startsWith('OpenTelemetry span export failed'));
    try {
      router.script(legReply());
      receiver.setHang(true);
      expect((await postJson(`${hub.url}/v1/chat/completions`, legBody)).status).toBe(200);
      const held = receiver.bodies.length;
      const flushed = hub.telemetry.flush();
      while (receiver.bodies.length === held) await new Promise((r) => setTimeout(r, 5));
      // An export hangs at the collector, and a turn runs to its end all the same.
      expect((await postJson(`${hub.url}/v1/chat/completions`, legBody)).status).toBe(200);
      expect(receiver.pending).toBeGreaterThan(0);
      await flushed;
      // (Had the 5 s batch timer sent these spans first, its export reports the failure: wait for the state, not a time.)
      while (failures().length === 0) await new Promise((r) => setTimeout(r, 5));
      expect(failures()).toHaveLength(1);
      expect(failures()[0]).toMatchObject({ level: 40, collector: `${receiver.baseUrl}/v1/traces` });
      // Still down: more turns, more failed exports, no second warning.
      expect((await postJson(`${hub.url}/v1/chat/completions`, legBody)).status).toBe(200);
      await hub.telemetry.flush();
      expect(failures()).toHaveLength(1);
      // Back: one line says so, and the next turn's spans arrive.
      receiver.setHang(false);
      expect((await postJson(`${hub.url}/v1/chat/completions`, legBody, { headers: { 'x-request-id': 'otel-after-outage' } })).status).toBe(200);
      await hub.telemetry.flush();
      expect(logs.filter((l) => l.msg === 'OpenTelemetry span export works again')).toHaveLength(1);
      expect(receiver.spans().some((sp) => sp.attributes['hub.request.id'] === 'otel-after-outage')).toBe(true);
      expect(raw.join('')).not.toContain('collector-secret');
    } finally {
      receiver.setHang(false);
      await hub.close();
      router.reset();
    }
  });
});

describe('with no OTLP endpoint', () => {
  /** A hub in a child process answers one leg, then lists the OpenTelemetry modules it has loaded. */
  async function loadedModules(env: Record<string, string>): Promise<string[]> {
    const { code, stdout, stderr } = await runProcess(process.execPath, ['-r', './scripts/register-ts.js', 'test/support/telemetry-modules-child.ts'], { cwd: ROOT, env });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(stdout) as string[];
  }

  test('no OpenTelemetry SDK module is loaded (and with one, they are: the check sees them)', async () => {
    const off = await loadedModules({});
    // @opentelemetry/api comes with prom-client (its exemplars); nothing of the SDK, the exporter or the hub's otel.ts.
    expect(off.filter((m) => m !== '@opentelemetry/api')).toEqual([]);
    const receiver = new OtlpReceiver();
    await receiver.start();
    try {
      const on = await loadedModules({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.baseUrl });
      expect(on).toEqual(expect.arrayContaining(['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http', 'server/telemetry/otel.ts']));
    } finally {
      await receiver.stop();
    }
    // Two child processes each compile the hub's sources (swc) before they start: slow on a busy machine.
  }, 60_000);
});
