/**
 * team-12b-checked end to end (hub-contract §4.4 `gather`, issue #17 item 4): the orchestrator may
 * consult the medical expert through the `medical_expert` tool (at most three iterations, plain calls
 * without response_format), the expert's notes reach the Answer and the In-Depth "GATHERED KB /
 * EVIDENCE" section, the Answer context is re-selected with them accounted, and the trace shows
 * each iteration. A failing loop never fails the turn.
 */
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { isCall, scriptChecked, userText } from '../support/checkers';
import type { FakeRouter, RecordedRequest, ScriptedReply } from '../support/fake-router';
import { postJson, SMALL_CHART, traceLines, useRouterAndHub } from '../support/hub';
import { FIXTURES } from '../support/knowledge-service';

const PROFILE = 'team-12b-checked';
const EXPERT = 'medgemma-1.5-4b-q8';
const QUESTION = 'How has the weight changed, and does it matter clinically?';
const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
const CLAIMS = ['The most recent weight, 71 kg, was recorded at the 2026-03-02 visit [2].'];
const NOTE = '- A 3 kg loss over about seven weeks [3][2] is modest; recheck at the return visit [4].';
const GATHERED = `Gathered evidence:\n\nClinical expert notes:\n${NOTE}`;
const messages = [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: QUESTION }];

const isToolTurn = (r: RecordedRequest) => Array.isArray(r.body?.tools);
const hasToolResult = (r: RecordedRequest) => (r.body.messages as Array<{ role: string }>).some((m) => m.role === 'tool');
const ask = (query: string): ScriptedReply['toolCalls'] => [{ name: 'medical_expert', arguments: { query } }];

/** The orchestrator asks once, then is done; the expert answers; the rest is a clean checked turn. */
function scriptTeam(router: FakeRouter, orchestrator: ScriptedReply[] = [
  { match: { test: (r) => isToolTurn(r) && !hasToolResult(r) }, toolCalls: ask('Is the weight loss clinically significant?') },
  { match: { test: isToolTurn }, content: 'DONE' },
]): void {
  router.script(...orchestrator, { match: { model: EXPERT }, content: NOTE });
  scriptChecked(router, { answer: ANSWER, citations: [3, 2], claims: CLAIMS });
}

const answerCalls = (router: FakeRouter) => router.chatRequests().filter((r) => r.body.response_format?.json_schema?.name === 'chart_answer');

describe('team-12b-checked end to end', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', EXPERT], env: { HUB_ANCHOR: '2026-03-10' } });

  test('streaming: the expert is consulted once, its notes reach the Answer and In-Depth; the trace shows each iteration', async () => {
    scriptTeam(ctx.router);
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: PROFILE, messages, stream: true, context: { request_id: 'team-stream' } });
    expect(res.status).toBe(200);
    const parsed = parseChartSearchStream(await res.text());
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'done']);
    const done = parsed.events.at(-1)!.data as Record<string, any>;
    expect(done.answer).toBe(ANSWER);
    expect(done.answerValidation.status).toBe('checked');
    expect(done.context.derived_context_chars).toBe(GATHERED.length);

    const calls = ctx.router.chatRequests();
    const tools = calls.filter(isToolTurn);
    expect(tools).toHaveLength(2);
    for (const r of tools) {
      expect(r.body).not.toHaveProperty('response_format');
      expect(r.body).toMatchObject({ model: 'gemma-4-12b', tool_choice: 'auto' });
    }
    const expert = calls.filter((r) => r.body.model === EXPERT);
    expect(expert).toHaveLength(1);
    expect(expert[0]!.body).not.toHaveProperty('response_format');
    expect(userText(expert[0]!)).toContain('Is the weight loss clinically significant?');
    // The Answer reads the notes after its instructions; every stage opens with the same context text.
    const [answer] = answerCalls(ctx.router);
    expect(userText(answer!)).toContain(GATHERED);
    const first = String(tools[0]!.body.messages[0].content);
    const context = first.slice(0, first.indexOf('\n\nYou coordinate the answer'));
    expect(context).toContain('[5] (2025-12-01) Allergy: Penicillin');
    for (const r of [answer!, expert[0]!]) expect(String(r.body.messages[0].content).startsWith(`${context}\n\n`)).toBe(true);
    const inDepth = calls.find((r) => isCall(r, 'inDepth'))!;
    expect(userText(inDepth)).toContain(`=== GATHERED KB / EVIDENCE ===\n${GATHERED}`);
    // Both reviewers read what their writer read: the gathered section before the text under review.
    const answerReview = userText(calls.find((r) => isCall(r, 'answerReview'))!);
    expect(answerReview.indexOf(`=== GATHERED KB / EVIDENCE ===\n${GATHERED}`)).toBeGreaterThan(-1);
    expect(answerReview.indexOf('=== GATHERED KB / EVIDENCE ===')).toBeLessThan(answerReview.indexOf('=== DRAFT ANSWER ==='));
    const inDepthReview = userText(calls.find((r) => isCall(r, 'inDepthReview'))!);
    expect(inDepthReview.indexOf(`=== GATHERED KB / EVIDENCE ===\n${GATHERED}`)).toBeGreaterThan(-1);
    expect(inDepthReview.indexOf('=== GATHERED KB / EVIDENCE ===')).toBeLessThan(inDepthReview.indexOf('=== DIRECT ANSWER ==='));

    const line = (await traceLines(ctx.hub)).find((l) => l.correlation?.request_id === 'team-stream')!;
    expect(line.models).toMatchObject({ orchestrator: 'gemma-4-12b', expert: EXPERT, synthesizer: 'gemma-4-12b' });
    const roles = line.steps.map((s: any) => s.role);
    expect(roles.indexOf('gather')).toBeLessThan(roles.indexOf('context_reselection'));
    expect(roles.indexOf('context_reselection')).toBeLessThan(roles.indexOf('answer_synth'));
    expect(line.steps.filter((s: any) => s.role === 'orchestrator')).toEqual([
      expect.objectContaining({ iteration: 1, model: 'gemma-4-12b', tool_called: true, tool: 'medical_expert', outcome: 'tool_call', prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) }),
      expect.objectContaining({ iteration: 2, model: 'gemma-4-12b', tool_called: false, outcome: 'final' }),
    ]);
    expect(line.steps.find((s: any) => s.role === 'medical_expert')).toMatchObject({ iteration: 1, model: EXPERT, note: NOTE, outcome: 'note' });
    expect(line.steps.find((s: any) => s.role === 'gather')).toMatchObject({ iterations: 2, stop_reason: 'no_tool_call', expert_calls: 1, gathered_chars: GATHERED.length });
    expect(line.steps.find((s: any) => s.role === 'context_reselection')).toMatchObject({ stage: 'answer', mode: 'full', input_tokens: expect.any(Number) });
    expect(line.exact_request_budgets.measurements.map((m: any) => m.stage).slice(0, 3)).toEqual(['orchestrator', 'medical_expert', 'orchestrator']);
  });

  test('blocking: an orchestrator that always calls the tool is stopped after three iterations; the Answer still ships', async () => {
    scriptTeam(ctx.router, [{ match: { test: isToolTurn }, toolCalls: ask('Anything else?') }]);
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: PROFILE, messages, context: { request_id: 'team-max' } });
    expect(res.status).toBe(200);
    const env = JSON.parse(((await res.json()) as any).choices[0].message.content);
    expect(env.answer).toBe(ANSWER);
    const calls = ctx.router.chatRequests();
    expect(calls.filter(isToolTurn)).toHaveLength(3);
    expect(calls.filter((r) => r.body.model === EXPERT)).toHaveLength(3);
    expect(calls.filter(isToolTurn).every((r) => r.body.response_format === undefined)).toBe(true);
    const line = (await traceLines(ctx.hub)).find((l) => l.correlation?.request_id === 'team-max')!;
    expect(line.steps.filter((s: any) => s.role === 'orchestrator').map((s: any) => s.iteration)).toEqual([1, 2, 3]);
    expect(line.steps.find((s: any) => s.role === 'gather')).toMatchObject({ iterations: 3, stop_reason: 'max_iterations', expert_calls: 3 });
    expect(line.steps.some((s: any) => s.role === 'context_reselection')).toBe(true);
    expect(userText(answerCalls(ctx.router)[0]!).split(NOTE)).toHaveLength(4);
  });

  test('a router failure in the loop is swallowed: the turn proceeds to synthesis without gathered text', async () => {
    scriptTeam(ctx.router, [{ match: { test: isToolTurn }, status: 500 }]);
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: PROFILE, messages, context: { request_id: 'team-fail' } });
    expect(res.status).toBe(200);
    const env = JSON.parse(((await res.json()) as any).choices[0].message.content);
    expect(env.answer).toBe(ANSWER);
    expect(env.context.derived_context_chars).toBe(0);
    expect(userText(answerCalls(ctx.router)[0]!)).not.toContain('Gathered evidence:');
    expect(ctx.router.chatRequests().filter((r) => r.body.model === EXPERT)).toHaveLength(0);
    const line = (await traceLines(ctx.hub)).find((l) => l.correlation?.request_id === 'team-fail')!;
    expect(line.steps.find((s: any) => s.role === 'gather')).toMatchObject({ iterations: 1, stop_reason: 'failed' });
    expect(line.steps.find((s: any) => s.role === 'orchestrator')).toMatchObject({ outcome: 'router_error' });
    expect(line.steps.find((s: any) => s.role === 'context_reselection')).toMatchObject({ outcome: 'unchanged', reason: 'nothing_gathered' });
  });
});

describe('team-12b-checked with the knowledge-base source on', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', EXPERT], env: { HUB_ANCHOR: '2026-03-10', KNOWLEDGE_SOURCE: 'auto', KNOWLEDGE_DB_PATH: ':memory:', KNOWLEDGE_CONTENT: FIXTURES } });
  const CHART = [
    'Patient records (most recent first):',
    'Patient: 70-year-old Male',
    '[1] (2026-02-01) Medication: warfarine 5 mg',
    '[2] (2026-01-15) Condition: fibrillation atriale, status: active',
  ].join('\n');
  const KB_LINE = /\[\d+\] KnowledgeReference \(source: knowledge-base\): Sous warfarine, toute antibiothérapie/;

  test('the orchestrator and the expert read the knowledge record through the shared evidence ledger', async () => {
    scriptTeam(ctx.router);
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: PROFILE, messages: [{ role: 'user', content: CHART }, { role: 'user', content: 'Puis-je prescrire un antibiotique à ce patient ?' }] });
    expect(res.status).toBe(200);
    const calls = ctx.router.chatRequests();
    const orchestrator = calls.find(isToolTurn)!;
    expect(userText(orchestrator)).toMatch(KB_LINE);
    expect(userText(calls.find((r) => r.body.model === EXPERT)!)).toMatch(KB_LINE);
  });
});
