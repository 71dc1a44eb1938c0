/**
 * The team gather loop (engine/gather) against the fake llama.cpp router through the real router client:
 * a table of scripted orchestrator/expert replies, the loop's bound, failures swallowed, aborts propagated.
 */
import path from 'node:path';
import { loadConfig } from '../../../server/config';
import { parseChart } from '../../../server/context/inline-chart';
import { buildContextMessage } from '../../../server/context/layout';
import { selectAnswerContext } from '../../../server/engine/context-selection';
import { gather, MAX_ITERATIONS } from '../../../server/engine/gather';
import { createTurn } from '../../../server/engine/run';
import { useTokenCounter } from '../../../server/engine/budget';
import { adoptContextView, adoptLedger, openChart } from '../../../server/engine/slices/context';
import type { EngineDeps, TurnState } from '../../../server/engine/types';
import type { ContextViewSummary } from '../../../server/context/context-view';
import { createRouterClient } from '../../../server/llm/router-client';
import { createTokenCounter } from '../../../server/llm/tokens';
import type { RouterClient } from '../../../server/llm/types';
import { loadCatalog } from '../../../server/profiles/catalog';
import type { Profile } from '../../../server/profiles/types';
import { FakeRouter, type RecordedRequest, type ScriptedReply } from '../../support/fake-router';
import { SMALL_CHART } from '../../support/hub';

const ROOT = path.resolve(__dirname, '../../..');
const catalog = loadCatalog({ profilesPath: path.join(ROOT, 'profiles/levels.yaml'), promptsDir: path.join(ROOT, 'prompts') });
const TEAM = catalog.get('team-12b-checked')!;
const ORCH = TEAM.models.orchestrator!;
const EXPERT = TEAM.models.expert!;
const QUESTION = 'Is the weight change a concern given the penicillin allergy?';
const NOTE = 'Weight fell from 74 kg [3] to 71 kg [2]; the penicillin allergy [5] is unrelated.';

const ask = (query: unknown): ScriptedReply['toolCalls'] => [{ name: 'medical_expert', arguments: { query } }];
const orchestrator = (reply: Partial<ScriptedReply>, times = 1): ScriptedReply => ({ match: { model: ORCH }, times, ...reply });
const expert = (reply: Partial<ScriptedReply>): ScriptedReply => ({ match: { model: EXPERT }, ...reply });

describe('team gather loop', () => {
  const router = new FakeRouter({ models: [ORCH, EXPERT] });
  let client: RouterClient;
  let deps: EngineDeps;

  beforeAll(async () => {
    const baseUrl = await router.start();
    client = createRouterClient({ baseUrl, maxConcurrency: 2, maxQueue: 8, connectTimeoutMs: 2000, idleTimeoutMs: 0, discoveryTimeoutMs: 2000 });
    deps = { config: loadConfig({ LLM_BASE_URL: baseUrl }, ROOT), router: client, catalog } as unknown as EngineDeps;
  });
  afterAll(async () => {
    await client.close();
    await router.stop();
  });
  beforeEach(() => router.reset());

  function turnFor(profile: Profile = TEAM, signal = new AbortController().signal): TurnState {
    const turn = createTurn({ model: profile.id, messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: QUESTION }] }, profile, signal);
    openChart(turn, QUESTION, []);
    adoptLedger(turn, parseChart(SMALL_CHART, { maxRecords: 100 }));
    adoptContextView(turn, { contextMessage: buildContextMessage({ chart: SMALL_CHART }), summary: { derived_context_chars: 0 } as ContextViewSummary });
    return turn;
  }
  const calls = () => router.chatRequests();
  const byModel = (model: string) => calls().filter((r) => r.body.model === model);
  const steps = (turn: TurnState, role: string) => turn.steps.filter((s) => s.role === role);

  /** Every gather call is a plain call opening with the shared context message; only orchestrator turns offer the tool. */
  function expectPlainCalls(turn: TurnState): void {
    for (const r of calls()) {
      expect(r.body).not.toHaveProperty('response_format');
      expect(String(r.body.messages[0].content).startsWith(turn.context.contextMessage.text)).toBe(true);
      if (r.body.model === ORCH) expect(r.body).toMatchObject({ tool_choice: 'auto', tools: [{ type: 'function', function: { name: 'medical_expert' } }] });
      else expect(r.body).not.toHaveProperty('tools');
    }
  }

  const table: Array<[string, ScriptedReply[], { orch: number; expert: number; stop: string; notes: number; outcomes: string[] }]> = [
    ['no tool call: one iteration, nothing gathered', [orchestrator({ content: 'DONE' })], { orch: 1, expert: 0, stop: 'no_tool_call', notes: 0, outcomes: ['final'] }],
    ['a tool call, then an answer', [orchestrator({ toolCalls: ask('Is the weight loss significant?') }), orchestrator({ content: 'DONE' }), expert({ content: NOTE })], { orch: 2, expert: 1, stop: 'no_tool_call', notes: 1, outcomes: ['tool_call', 'final'] }],
    ['a tool call every time: stops at the bound', [orchestrator({ toolCalls: ask('More?') }, 10), expert({ content: NOTE })], { orch: MAX_ITERATIONS, expert: MAX_ITERATIONS, stop: 'max_iterations', notes: MAX_ITERATIONS, outcomes: ['tool_call', 'tool_call', 'tool_call'] }],
    ['two tool calls in one reply: only the first is run', [orchestrator({ toolCalls: [...ask('First?')!, ...ask('Second?')!] }), orchestrator({ content: 'DONE' }), expert({ content: NOTE })], { orch: 2, expert: 1, stop: 'no_tool_call', notes: 1, outcomes: ['tool_call', 'final'] }],
    ['malformed tool arguments', [orchestrator({ toolCalls: [{ name: 'medical_expert', arguments: '{"query": ' }] })], { orch: 1, expert: 0, stop: 'failed', notes: 0, outcomes: ['malformed_tool_call'] }],
    ['arguments without a query', [orchestrator({ toolCalls: ask('  ') })], { orch: 1, expert: 0, stop: 'failed', notes: 0, outcomes: ['malformed_tool_call'] }],
    ['a tool that was not offered', [orchestrator({ toolCalls: [{ name: 'kb_search', arguments: { query: 'x' } }] })], { orch: 1, expert: 0, stop: 'failed', notes: 0, outcomes: ['malformed_tool_call'] }],
    ['the orchestrator call fails at the router', [orchestrator({ status: 500 })], { orch: 1, expert: 0, stop: 'failed', notes: 0, outcomes: ['router_error'] }],
    ['the expert fails after a first note: that note is kept', [orchestrator({ toolCalls: ask('First?') }, 2), expert({ content: NOTE, times: 1 }), expert({ status: 500 })], { orch: 2, expert: 2, stop: 'failed', notes: 1, outcomes: ['tool_call', 'tool_call'] }],
  ];

  test.each(table)('%s', async (_name, replies, want) => {
    router.script(...replies);
    const turn = turnFor();
    await gather(turn, deps);
    expect(byModel(ORCH)).toHaveLength(want.orch);
    expect(byModel(EXPERT)).toHaveLength(want.expert);
    expectPlainCalls(turn);
    expect(turn.gather).toMatchObject({ stopReason: want.stop, iterations: want.orch });
    expect(turn.gather.notes).toHaveLength(want.notes);
    expect(steps(turn, 'orchestrator').map((s) => s.outcome)).toEqual(want.outcomes);
    expect(steps(turn, 'orchestrator').map((s) => s.iteration)).toEqual(want.outcomes.map((_, i) => i + 1));
    expect(steps(turn, 'gather')).toEqual([expect.objectContaining({ iterations: want.orch, stop_reason: want.stop, expert_calls: want.notes, tools_offered: ['medical_expert'] })]);
    if (want.notes > 0) expect(turn.gather.text.startsWith(`Gathered evidence:\n\nClinical expert notes:\n${NOTE}`)).toBe(true);
    else expect(turn.gather.text).toBe('');
    expect(turn.context.summary?.derived_context_chars).toBe(turn.gather.text.length);
  });

  test('the expert reads the orchestrator question; its note goes back as the tool result of that call', async () => {
    router.script(orchestrator({ toolCalls: [{ id: 'call-1', name: 'medical_expert', arguments: { query: 'Is the weight loss significant?' } }] }), orchestrator({ content: 'DONE' }), expert({ content: NOTE }));
    const turn = turnFor();
    await gather(turn, deps);
    const expertCall = byModel(EXPERT)[0]!;
    expect(String(expertCall.body.messages[0].content)).toContain('=== CONSULT REQUEST (from the orchestrator) ===\nIs the weight loss significant?');
    expect(expertCall.body).toMatchObject({ temperature: 0.1, max_tokens: 800, dry_multiplier: 0.8 });
    const second = byModel(ORCH)[1]!.body.messages as Array<Record<string, any>>;
    expect(second).toHaveLength(3);
    expect(second.slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'medical_expert', arguments: '{"query":"Is the weight loss significant?"}' } }] },
      { role: 'tool', tool_call_id: 'call-1', content: NOTE },
    ]);
    expect(steps(turn, 'medical_expert')).toEqual([expect.objectContaining({ iteration: 1, model: EXPERT, query: 'Is the weight loss significant?', note: NOTE, outcome: 'note' })]);
    expect(steps(turn, 'orchestrator')[0]).toMatchObject({ tool_called: true, tool: 'medical_expert', tool_calls: 1 });
    expect(steps(turn, 'orchestrator')[1]).toMatchObject({ tool_called: false, tool_calls: 0 });
  });

  test('without an expert model no tool is offered and no orchestrator call is made', async () => {
    const { expert: _dropped, ...models } = TEAM.models;
    const turn = turnFor({ ...TEAM, models } as Profile);
    await gather(turn, deps);
    expect(calls()).toHaveLength(0);
    expect(steps(turn, 'gather')).toEqual([expect.objectContaining({ iterations: 0, stop_reason: 'no_tool_call', tools_offered: [] })]);
  });

  test('a call the exact budget refuses is swallowed as a failed loop, before it reaches the router', async () => {
    const tight = { ...TEAM, context: { ...TEAM.context, window: TEAM.context.reservedOutputTokens + 20 } } as Profile;
    const turn = turnFor(tight);
    useTokenCounter(turn, () => createTokenCounter({ router: client, local: null }, { signal: turn.signal }));
    await gather(turn, deps);
    expect(calls()).toHaveLength(0);
    expect(steps(turn, 'orchestrator')).toEqual([expect.objectContaining({ outcome: 'budget_exceeded', error: 'insufficient_context' })]);
    expect(turn.gather.stopReason).toBe('failed');
    expect(turn.accounting.budgets.map((b) => b.stage)).toEqual(['orchestrator']);
  });

  test('usage and slots of every gather call are accounted on the turn', async () => {
    router.script(orchestrator({ toolCalls: ask('Q?'), usage: { prompt_tokens: 100, completion_tokens: 7 } }), orchestrator({ content: 'DONE', usage: { prompt_tokens: 120, completion_tokens: 1 } }), expert({ content: NOTE, usage: { prompt_tokens: 90, completion_tokens: 20 } }));
    const turn = turnFor();
    await gather(turn, deps);
    expect(turn.accounting.usage).toEqual(expect.objectContaining({ prompt_tokens: 310, completion_tokens: 28, total_tokens: 338 }));
    expect(turn.accounting.slots).toMatchObject({ acquisitions: 3, releases: 3, active: 0 });
    expect(steps(turn, 'orchestrator').map((s) => [s.prompt_tokens, s.completion_tokens])).toEqual([[100, 7], [120, 1]]);
  });

  describe('context re-selection on an exact budget', () => {
    /** A turn whose window fits the whole chart with the bare Answer request and `slack` tokens to spare. */
    async function selectedTurn(slack: number): Promise<TurnState> {
      const probe = turnFor();
      await selectAnswerContext(probe, deps, probe.context.ledger!);
      const fitted = Number(steps(probe, 'context_selection')[0]!.input_tokens);
      const profile = { ...TEAM, context: { ...TEAM.context, window: TEAM.context.reservedOutputTokens + fitted + slack } } as Profile;
      const turn = turnFor(profile);
      await selectAnswerContext(turn, deps, turn.context.ledger!);
      expect(turn.context.summary).toMatchObject({ selection_mode: 'full', derived_context_chars: 0 });
      router.reset();
      return turn;
    }

    test('notes that leave less room re-select fewer records; the Answer request measured carries the notes', async () => {
      const turn = await selectedTurn(5);
      const longNote = `${NOTE} The trend needs review [2].`;
      router.script(orchestrator({ toolCalls: ask('Q?') }), orchestrator({ content: 'DONE' }), expert({ content: longNote }));
      await gather(turn, deps);
      expect(turn.gather.stopReason).toBe('no_tool_call');
      const reselection = steps(turn, 'context_reselection')[0]!;
      expect(reselection).toMatchObject({ stage: 'answer', mode: 'selected' });
      expect(Number(reselection.input_tokens)).toBeLessThanOrEqual(Number(reselection.input_limit));
      expect(Number(reselection.excluded_count)).toBeGreaterThan(0);
      expect(turn.context.summary).toMatchObject({ selection_mode: 'selected', derived_context_chars: turn.gather.text.length });
      expect(turn.gather.text).toContain(longNote);
      expect(turn.context.contextMessage.text).not.toContain('[1] (2026-03-02) Encounter');
    });

    test('notes too long for even the mandatory records beside them are dropped; the first selection stands', async () => {
      const turn = await selectedTurn(5);
      const before = turn.context.contextMessage;
      router.script(orchestrator({ toolCalls: ask('Q?') }), expert({ content: 'word '.repeat(6000) }));
      await gather(turn, deps);
      expect(turn.gather.text).toBe('');
      expect(turn.context.contextMessage).toBe(before);
      expect(turn.context.summary).toMatchObject({ selection_mode: 'full', derived_context_chars: 0 });
      expect(steps(turn, 'context_reselection')).toEqual([expect.objectContaining({ outcome: 'gathered_dropped', reason: 'insufficient_context' })]);
    });
  });

  test('a client abort during a gather call propagates (it is not a swallowed loop failure)', async () => {
    const ac = new AbortController();
    // The abort comes when the router has the request: the hub call is in flight, its reply never comes.
    router.script({ match: { model: ORCH, test: (_r: RecordedRequest) => (ac.abort(), true) }, fault: 'hang' });
    const turn = turnFor(TEAM, ac.signal);
    await expect(gather(turn, deps)).rejects.toBeDefined();
    expect(turn.gather.stopReason).toBeNull();
    expect(steps(turn, 'gather')).toHaveLength(0);
    expect(turn.accounting.slots.active).toBe(0);
  });
});
