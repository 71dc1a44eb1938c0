/**
 * single-12b-verify (cross-family reviewer, folded citation verdicts with a separate-check fallback)
 * and single-12b-agree (a second writer's independent answer checked sentence by sentence), end to end.
 */
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { askedPairs, differs, factChecker, found, isCall, notFound, scriptChecked } from '../support/checkers';
import { postJson, SMALL_CHART, traceLines, useRouterAndHub } from '../support/hub';

const QUESTION = 'What is the latest weight and is there an allergy?';
const ANSWER = 'The latest weight is 71 kg [2]. A penicillin allergy with rash is documented [5].';
const CLAIMS = ['An earlier weight of 74 kg was recorded [3].'];
const messages = [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: QUESTION }];

async function blocking(url: string, model: string): Promise<Record<string, any>> {
  const res = await postJson(`${url}/v1/chat/completions`, { model, messages });
  expect(res.status).toBe(200);
  return JSON.parse(((await res.json()) as any).choices[0].message.content);
}

const cleanFolded = (req: any) => JSON.stringify({ answer_ok: true, errors: [], corrected_answer: '', pairs: askedPairs(req).map((p) => ({ pair: p.pair, facts: [found(p.statement)] })) });

describe('single-12b-verify end to end', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen3.5-9b'], env: { HUB_ANCHOR: '2026-03-10' } });

  test('the cross-family reviewer judges each cited statement in the same call: no separate grounding call for the Answer', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [2, 5], claims: CLAIMS, review: { reply: cleanFolded } });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-verify', messages, stream: true });
    const parsed = parseChartSearchStream(await res.text());
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'done']);
    const done = parsed.events.at(-1)!.data as Record<string, any>;
    expect(done.answer).toBe(ANSWER);
    expect(done.answerValidation.status).toBe('checked');
    for (const i of [2, 5]) {
      const ref = done.references.find((r: any) => r.index === i);
      expect(ref).toMatchObject({ support: 'supported', groundingStatus: 'verified' });
      expect(ref.groundingChecks.filter((c: any) => c.location === 'answer').map((c: any) => c.method)).toEqual(['folded']);
    }
    const calls = ctx.router.chatRequests();
    const review = calls.find((r) => isCall(r, 'answerReview'))!;
    expect(review.body.model).toBe('qwen3.5-9b');
    expect(review.body.response_format.json_schema.schema.properties).toHaveProperty('pairs');
    expect(askedPairs(review).map((p) => p.statement)).toEqual(['The latest weight is 71 kg.', 'A penicillin allergy with rash is documented.']);
    // Only the In-Depth claim goes to the separate checker.
    const grounding = calls.filter((r) => isCall(r, 'grounding'));
    expect(grounding.flatMap((r) => askedPairs(r).map((p) => p.statement))).toEqual(['An earlier weight of 74 kg was recorded.']);
    // The Qwen 3 checker samples at 0.7 with the repetition penalty off (profile knobs).
    expect(grounding[0].body).toMatchObject({ model: 'qwen3.5-9b', temperature: 0.7, repeat_penalty: 1 });
  });

  test('when the reviewer omits citation verdicts, the separate facts-first check runs instead', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [2, 5], claims: CLAIMS });
    const env = await blocking(ctx.hub.url, 'single-12b-verify');
    expect(env.answerValidation.status).toBe('checked');
    const grounding = ctx.router.chatRequests().filter((r) => isCall(r, 'grounding'));
    expect(grounding.flatMap((r) => askedPairs(r).map((p) => p.statement))).toEqual(['The latest weight is 71 kg.', 'A penicillin allergy with rash is documented.', 'An earlier weight of 74 kg was recorded.']);
    for (const i of [2, 5]) expect(env.references.find((r: any) => r.index === i).groundingChecks[0].method).toBe('model');
  });

  test('a folded contradiction marks the statement; a pair the reviewer skipped is checked separately', async () => {
    const reply = (req: any) => JSON.stringify({ answer_ok: true, errors: [], corrected_answer: '', pairs: [{ pair: 2, facts: [differs('penicillin allergy', 'Allergy: Amoxicillin')] }] });
    scriptChecked(ctx.router, { answer: ANSWER, citations: [2, 5], claims: [], review: { reply } });
    const env = await blocking(ctx.hub.url, 'single-12b-verify');
    expect(env.answer).toBe(ANSWER);
    expect(env.references.find((r: any) => r.index === 5)).toMatchObject({ support: 'contradicted', groundingStatus: 'unsupported' });
    expect(env.references.find((r: any) => r.index === 2).groundingChecks[0]).toMatchObject({ method: 'model', support: 'supported' });
    expect(env.answerValidation.status).toBe('needs_review');
    expect(env.confidence.answer.note).toContain('Allergy: Amoxicillin');
  });
});

describe('single-12b-agree end to end', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen3.5-9b'], env: { HUB_ANCHOR: '2026-03-10' } });
  const SECOND = JSON.stringify({ answer: 'Latest weight 71 kg [2]; penicillin allergy (rash) [5].', citations: [2, 5], blocks: [] });

  test('the second writer agrees: agreement {status: agreed}, the shown Answer stays the first writer\'s', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [2, 5], claims: CLAIMS, second: { content: SECOND } });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-agree', messages, stream: true });
    const parsed = parseChartSearchStream(await res.text());
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'done']);
    const [answerDone, validation] = parsed.events.map((e) => e.data as Record<string, any>);
    expect(answerDone).not.toHaveProperty('agreement');
    expect(validation.agreement).toMatchObject({ model: 'qwen3.5-9b', status: 'agreed', answer: 'Latest weight 71 kg [2]; penicillin allergy (rash) [5].' });
    expect(validation.agreement.claims.map((c: any) => c.status)).toEqual(['agreed', 'agreed']);
    expect(validation.answer).toBe(ANSWER);
    expect(validation.answerValidation.status).toBe('checked');
    const agreement = ctx.router.chatRequests().filter((r) => isCall(r, 'agreement'));
    expect(agreement).toHaveLength(1);
    expect(askedPairs(agreement[0])[0].sources).toContain('Latest weight 71 kg');
    // The second writer answered from the same shared context, independently (its own model and prompt).
    const second = ctx.router.chatRequests().find((r) => r.body.model === 'qwen3.5-9b' && r.body.response_format?.json_schema?.name === 'chart_answer')!;
    expect(second).toBeDefined();
    const blockingEnv = await blocking(ctx.hub.url, 'single-12b-agree');
    expect(blockingEnv.agreement.status).toBe('agreed');
  });

  test('a sentence the second writer states differently is a fail issue: needs_review, the text unchanged', async () => {
    const judge = factChecker((p) => (p.statement.includes('penicillin') ? [differs('penicillin allergy', 'no known allergies')] : p.statement.includes('weight') ? [found(p.statement)] : [notFound(p.statement)]));
    scriptChecked(ctx.router, { answer: ANSWER, citations: [2, 5], claims: [], second: { content: JSON.stringify({ answer: 'Weight 71 kg [2]. No known allergies.', citations: [2], blocks: [] }) }, agreement: { reply: judge } });
    const env = await blocking(ctx.hub.url, 'single-12b-agree');
    expect(env.answer).toBe(ANSWER);
    expect(env.agreement.status).toBe('differs');
    expect(env.agreement.claims).toEqual([
      { claim_index: 1, claim: 'The latest weight is 71 kg.', status: 'agreed' },
      { claim_index: 2, claim: 'A penicillin allergy with rash is documented.', status: 'differs', other_says: ['no known allergies'] },
    ]);
    expect(env.agreement.other).toEqual([{ claim_index: 2, says: ['no known allergies'] }]);
    expect(env.answerValidation.status).toBe('needs_review');
    expect(env.answerValidation.issues).toContainEqual(expect.objectContaining({ id: 'agreement', status: 'fail', claim: 'A penicillin allergy with rash is documented.' }));
  });

  test('a second writer that fails leaves agreement unchecked and the Answer unavailable (never checked)', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [2, 5], claims: [], second: { status: 500, errorBody: { error: { code: 500, message: 'boom', type: 'server_error' } } } });
    const env = await blocking(ctx.hub.url, 'single-12b-agree');
    expect(env.answer).toBe(ANSWER);
    expect(env.agreement).toMatchObject({ status: 'unchecked', answer: '' });
    expect(env.answerValidation.status).toBe('unavailable');
    const line = (await traceLines(ctx.hub)).at(-1)!;
    expect(line.steps.find((s: any) => s.role === 'second_writer')).toMatchObject({ usable: false });
  });
});
