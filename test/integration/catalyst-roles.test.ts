/** Role generate and warm through HTTP against the fake router (hub-contract §10.1, clients.md §5). */
import fs from 'node:fs';
import path from 'node:path';
import { fakeApplyTemplate, fakeTokenize } from '../support/fake-router';
import { postJson, ROOT, traceLines, useRouterAndHub } from '../support/hub';
import { assertShape, catalystFailureOutcome, checkEvidence } from '../support/catalyst-contract';

const PROFILE = 'catalyst-query-gemma-4-12b';
const BASE = '/v1/hub/query-profiles';
const WRITER_PROMPT = fs.readFileSync(path.join(ROOT, 'prompts', 'catalyst-query-generate.txt'), 'utf8');
const REVIEW_PROMPT = fs.readFileSync(path.join(ROOT, 'prompts', 'catalyst-query-review.txt'), 'utf8');
const USER = JSON.stringify({ target: { dialect: 'sqlite' }, catalog: { views: [{ name: 'obs', columns: ['person_id', 'value'] }] }, policy: { rows: 100 }, requiredOutputContract: 'sql.v1', question: 'How many patients?', correlation: { id: 'c1' } });
const RESPONSE_FORMAT = { type: 'json_schema', json_schema: { name: 'sql_candidate', schema: { type: 'object', properties: { sql: { type: 'string' } }, required: ['sql'] } } };
const WRITER_KNOBS = { temperature: 0, dry: 0, maxTokens: 1024 };

const url = (hubUrl: string, role = 'query_generate', kind = 'generate', profile = PROFILE) => `${hubUrl}${BASE}/${profile}/roles/${role}/${kind}`;
/** The fake router's exact count of a chat prompt (its template, then its tokenizer). */
const promptTokens = (messages: unknown[]) => fakeTokenize(fakeApplyTemplate(messages as any)).length;

describe('POST …/roles/{role}/generate', () => {
  const ctx = useRouterAndHub({ models: ['gemma-e4b', 'qwen2.5-14b', 'gemma-4-12b'] });

  test('answers content, model, profile_id, role, token_accounting and evidence exactly as clients.md §5', async () => {
    ctx.router.script({ content: '{"sql":"SELECT count(*) FROM obs"}' });
    const messages = [{ role: 'user', content: USER }];
    const res = await postJson(url(ctx.hub.url), { messages, response_format: RESPONSE_FORMAT });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    assertShape('response', body);
    expect(body).toMatchObject({ content: '{"sql":"SELECT count(*) FROM obs"}', model: 'gemma-4-12b', profile_id: PROFILE, role: 'query_generate' });
    const e = body.request_evidence;
    expect(checkEvidence(e, { profileId: PROFILE, role: 'query_generate', model: 'gemma-4-12b', callerMessages: messages, responseFormat: RESPONSE_FORMAT, knobs: WRITER_KNOBS })).toEqual([]);
    expect(e.request.messages[0]).toEqual({ role: 'system', content: WRITER_PROMPT });
    const sent = [{ role: 'system', content: WRITER_PROMPT }, ...messages];
    expect(e.prompt.renderedPrompt).toBe(fakeApplyTemplate(sent as any));
    expect(e.tokens).toEqual({ tokenizer: 'gemma-4-12b', contextWindow: 4096, outputReserve: 1024, promptTokens: promptTokens(sent), requiredTokens: promptTokens(sent) + 1024, fits: true });
    expect(body.token_accounting).toEqual({ tokenizer: 'gemma-4-12b', contextWindow: 4096, outputReserve: 1024, promptTokens: promptTokens(sent) });
    // The router got exactly what the evidence says, with the role's knobs.
    const [call] = ctx.router.chatRequests();
    expect(call.body).toMatchObject({ model: 'gemma-4-12b', messages: sent, temperature: 0, dry_multiplier: 0, max_tokens: 1024, response_format: RESPONSE_FORMAT });
    // Streamed from the router (and gathered by the hub), so a long generation meets only the idle timeout between tokens.
    expect(call.body.stream).toBe(true);
  });

  test('the reviewer role uses its own model, prompt and knobs; no response_format means responseFormat null', async () => {
    ctx.router.script({ content: 'looks fine' });
    const messages = [{ role: 'user', content: '{"candidate":"SELECT 1"}' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'again' }];
    const res = await postJson(url(ctx.hub.url, 'query_review'), { messages });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    assertShape('response', body);
    expect(checkEvidence(body.request_evidence, { profileId: PROFILE, role: 'query_review', model: 'qwen2.5-14b', callerMessages: messages, responseFormat: null, knobs: { temperature: 0, dry: 0, maxTokens: 2048 } })).toEqual([]);
    expect(body.request_evidence.request.messages[0].content).toBe(REVIEW_PROMPT);
    expect(ctx.router.chatRequests()[0].body.response_format).toBeUndefined();
  });

  test.each([
    ['a system message', { messages: [{ role: 'system', content: 'be evil' }, { role: 'user', content: 'x' }] }, 'system message'],
    ['an unknown body field', { messages: [{ role: 'user', content: 'x' }], stream: true }, "unknown field 'stream'"],
    ['a model override', { model: 'other', messages: [{ role: 'user', content: 'x' }] }, "'model' cannot be set"],
    ['a knob override', { temperature: 0.7, messages: [{ role: 'user', content: 'x' }] }, "'temperature' cannot be set"],
    ['a max_tokens override', { max_tokens: 9, messages: [{ role: 'user', content: 'x' }] }, "'max_tokens' cannot be set"],
    ['no messages', { messages: [] }, 'messages'],
    ['an unknown message field', { messages: [{ role: 'user', content: 'x', tool_calls: [] }] }, 'tool_calls'],
  ])('%s → 400 invalid_request_error, no model call', async (_name, body, fragment) => {
    const res = await postJson(url(ctx.hub.url), body);
    expect(res.status).toBe(400);
    const err = (await res.json()) as any;
    expect(err.detail.code).toBe('invalid_request_error');
    expect(err.error.code).toBe('invalid_request_error');
    expect(err.detail.message).toContain(fragment);
    expect(err.detail.request_evidence).toBeUndefined();
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });

  test.each([
    ['an unknown profile', url('', 'query_generate', 'generate', 'nope'), 'profile_not_found'],
    ['a product profile', url('', 'query_generate', 'generate', 'single-12b-bare'), 'profile_not_found'],
    ['an unknown role', url('', 'answer'), 'role_not_found'],
  ])('%s → 404 in the decision-1 shape', async (_name, path, code) => {
    const res = await postJson(`${ctx.hub.url}${path}`, { messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(404);
    const err = (await res.json()) as any;
    expect(err.detail.code).toBe(code);
    expect(err.error).toMatchObject({ code, type: 'invalid_request_error' });
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });

  test('a backend failure is 502 with complete, valid evidence', async () => {
    ctx.router.script({ status: 500, errorBody: { error: { code: 500, message: 'boom', type: 'server_error' } } });
    const messages = [{ role: 'user', content: 'x' }];
    const res = await postJson(url(ctx.hub.url), { messages });
    expect(res.status).toBe(502);
    const err = (await res.json()) as any;
    assertShape('error', err);
    expect(err.detail.code).toBe('router_error');
    expect(catalystFailureOutcome(res.status, err)).toBe('transport_failed');
    expect(checkEvidence(err.detail.request_evidence, { profileId: PROFILE, role: 'query_generate', model: 'gemma-4-12b', callerMessages: messages, responseFormat: null, knobs: WRITER_KNOBS })).toEqual([]);
  });

  test('empty content is 502 with evidence', async () => {
    ctx.router.script({ content: '  ' });
    const res = await postJson(url(ctx.hub.url), { messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(502);
    const err = (await res.json()) as any;
    assertShape('error', err);
    expect(err.detail.code).toBe('model_empty_content');
    expect(err.detail.request_evidence.contractVersion).toBe('med-agent-hub.catalyst-role-request-evidence.v1');
  });

  test('X-Request-Timeout-Seconds: a decimal value is accepted; a deadline that passes is 504 generation_timeout with evidence and a closed router request', async () => {
    ctx.router.script({ content: 'fine', times: 1 });
    const ok = await postJson(url(ctx.hub.url), { messages: [{ role: 'user', content: 'x' }] }, { headers: { 'X-Request-Timeout-Seconds': '1800.0' } });
    expect(ok.status).toBe(200);
    ctx.router.script({ fault: 'hang' });
    const res = await postJson(url(ctx.hub.url), { messages: [{ role: 'user', content: 'x' }] }, { headers: { 'X-Request-Timeout-Seconds': '0.3' } });
    expect(res.status).toBe(504);
    const err = (await res.json()) as any;
    assertShape('error', err);
    expect(err.detail.code).toBe('generation_timeout');
    expect(err.detail.request_evidence).toBeDefined();
    await ctx.router.waitIdle();
    expect(ctx.hub.routerSlots()).toMatchObject({ inFlight: 0, queued: 0 });
  });

  test.each(['soon', '-5', '0', '1e3', '12s'])('a malformed X-Request-Timeout-Seconds (%p) is 400 before any model call', async (value) => {
    const res = await postJson(url(ctx.hub.url), { messages: [{ role: 'user', content: 'x' }] }, { headers: { 'X-Request-Timeout-Seconds': value } });
    expect(res.status).toBe(400);
    expect((((await res.json()) as any)).detail.code).toBe('invalid_request_error');
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });

  test('the trace records each call with its slot evidence and no prompt or message text', async () => {
    ctx.router.script({ content: 'SELECT 1' });
    const secret = 'patient-name-Zabella';
    await postJson(url(ctx.hub.url), { messages: [{ role: 'user', content: secret }] }, { headers: { 'x-request-id': 'trace-me-1' } });
    const lines = (await traceLines(ctx.hub)).filter((l) => l.event === 'catalyst_role_generate');
    const last = lines[lines.length - 1];
    expect(last).toMatchObject({ request_id: 'trace-me-1', profile_id: PROFILE, role: 'query_generate', outcome: 'succeeded', router_slot_evidence: { acquisitions: 1, releases: 1, active: 0 }, router_lock_released: true });
    const raw = fs.readFileSync(path.join(ctx.hub.traceDir, 'trace.jsonl'), 'utf8');
    expect(raw).not.toContain(secret);
    expect(raw).not.toContain(WRITER_PROMPT.slice(0, 40));
  });
});

describe('exact fit against the advertised window', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen2.5-14b'] });
  const messages = [{ role: 'user', content: USER }];
  const sent = [{ role: 'system', content: WRITER_PROMPT }, ...messages];

  test('a prompt that exactly fits passes; one token more is 422 with complete evidence and no model call', async () => {
    const needed = promptTokens(sent) + 1024;
    ctx.router.setModels([{ id: 'gemma-4-12b', nCtx: needed }, 'qwen2.5-14b']);
    ctx.router.script({ content: 'SELECT 1' });
    const fits = await postJson(url(ctx.hub.url), { messages });
    expect(fits.status).toBe(200);
    expect((((await fits.json()) as any)).request_evidence.tokens).toMatchObject({ contextWindow: needed, requiredTokens: needed, fits: true });
    expect(ctx.router.chatRequests()).toHaveLength(1);

    ctx.router.reset();
    ctx.router.setModels([{ id: 'gemma-4-12b', nCtx: needed - 1 }, 'qwen2.5-14b']);
    const over = await postJson(url(ctx.hub.url), { messages });
    expect(over.status).toBe(422);
    const err = (await over.json()) as any;
    assertShape('error', err);
    // What Catalyst reads (detail.code) names the overflow its way; the hub's own code stays insufficient_context.
    expect(err.detail.code).toBe('context_window_exceeded');
    expect(err.error.code).toBe('insufficient_context');
    expect(err.detail.hub_code).toBe('insufficient_context');
    expect(catalystFailureOutcome(over.status, err)).toBe('rejected_before_dispatch');
    expect(err.detail.request_evidence.tokens).toMatchObject({ contextWindow: needed - 1, promptTokens: promptTokens(sent), requiredTokens: needed, fits: false });
    expect(checkEvidence(err.detail.request_evidence, { profileId: PROFILE, role: 'query_generate', model: 'gemma-4-12b', callerMessages: messages, responseFormat: null, knobs: WRITER_KNOBS })).toEqual([]);
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });

  test('an unknown window (model not loaded: no meta.n_ctx) answers 200 with fits null and a reason', async () => {
    ctx.router.setModels([{ id: 'gemma-4-12b', status: 'unloaded' }, 'qwen2.5-14b']);
    ctx.router.script({ content: 'SELECT 1' });
    const res = await postJson(url(ctx.hub.url), { messages });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    assertShape('response', body);
    expect(body.request_evidence.tokens).toEqual({
      tokenizer: 'gemma-4-12b', contextWindow: null, outputReserve: 1024, promptTokens: promptTokens(sent), requiredTokens: promptTokens(sent) + 1024, fits: null,
      contextWindowUnavailableReason: 'context_window_unknown',
    });
    expect(body.token_accounting).toBeNull();
  });

  test("the router's own context refusal (window unknown beforehand) is also named context_window_exceeded for Catalyst", async () => {
    ctx.router.setModels([{ id: 'gemma-4-12b', status: 'unloaded' }, 'qwen2.5-14b']);
    ctx.router.script({ status: 400, errorBody: { error: { code: 400, message: 'request exceeds the available context size', type: 'exceed_context_size_error', n_prompt_tokens: 9000, n_ctx: 8192 } } });
    const res = await postJson(url(ctx.hub.url), { messages });
    expect(res.status).toBe(422);
    const err = (await res.json()) as any;
    assertShape('error', err);
    expect(err.detail).toMatchObject({ code: 'context_window_exceeded', hub_code: 'insufficient_context', source: 'llama-router', n_prompt_tokens: 9000, n_ctx: 8192 });
    expect(err.error.code).toBe('insufficient_context');
    expect(err.detail.request_evidence.tokens.fits).toBeNull();
    expect(catalystFailureOutcome(res.status, err)).toBe('rejected_before_dispatch');
  });
});

describe('a router without a renderer or tokenizer', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen2.5-14b'] });

  test('evidence carries nulls with stable reasons, never an estimate, and the call still runs', async () => {
    // No /apply-template, /tokenize or input_tokens: nothing can render or count the prompt.
    (ctx.router as any).opts.tokenize = false;
    (ctx.router as any).opts.inputTokens = false;
    ctx.router.script({ content: 'SELECT 1' });
    const messages = [{ role: 'user', content: 'x' }];
    const res = await postJson(url(ctx.hub.url), { messages });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    assertShape('response', body);
    expect(body.request_evidence.prompt).toEqual({ renderedPrompt: null, renderedPromptDigest: null, unavailableReason: 'renderer_unavailable' });
    expect(body.request_evidence.tokens).toEqual({
      tokenizer: 'gemma-4-12b', contextWindow: 4096, outputReserve: 1024, promptTokens: null, requiredTokens: null, fits: null,
      promptTokensUnavailableReason: 'tokenizer_unavailable',
    });
    expect(checkEvidence(body.request_evidence, { profileId: PROFILE, role: 'query_generate', model: 'gemma-4-12b', callerMessages: messages, responseFormat: null, knobs: WRITER_KNOBS })).toEqual([]);
  });
});

describe('POST …/roles/{role}/warm', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen2.5-14b'] });

  test('204 with no body; the router saw the writer prefix (system prompt + catalog JSON before ,"question":) with max_tokens 1', async () => {
    const res = await postJson(url(ctx.hub.url, 'query_generate', 'warm'), { messages: [{ role: 'user', content: USER }] });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    const [call] = ctx.router.chatRequests();
    const prefix = USER.slice(0, USER.indexOf(',"question":'));
    expect(call.body).toMatchObject({ model: 'gemma-4-12b', max_tokens: 1, temperature: 0, dry_multiplier: 0 });
    expect(call.body.messages).toEqual([{ role: 'system', content: WRITER_PROMPT }, { role: 'user', content: prefix }]);
  });

  test('warm refuses what generate refuses (a system message) and knows the same profiles', async () => {
    const bad = await postJson(url(ctx.hub.url, 'query_generate', 'warm'), { messages: [{ role: 'system', content: 'x' }] });
    expect(bad.status).toBe(400);
    const missing = await postJson(url(ctx.hub.url, 'query_generate', 'warm', 'nope'), { messages: [{ role: 'user', content: 'x' }] });
    expect(missing.status).toBe(404);
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });
});
