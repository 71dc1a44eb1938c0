/**
 * single-12b-checked end to end (§7.3–§7.5 Target, decision 9): the reviewer labels and never
 * rewrites, citations are grounded facts-first in batches of at most four, and `answer_validation`
 * settles the Answer between `answer_done` and `indepth_pending`.
 */
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { CLEAN_REVIEW, MARK, askedPairs, differs, factChecker, found, isCall, notFound, scriptChecked } from '../support/checkers';
import { postJson, SMALL_CHART, traceLines, useRouterAndHub } from '../support/hub';
import { syntheticChart } from '../support/synthetic-chart';

const QUESTION = 'How has the weight changed?';
const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
const CLAIMS = ['The most recent weight, 71 kg, was recorded at the 2026-03-02 visit [2].', 'A penicillin allergy with rash is documented [5].'];
const messages = [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: QUESTION }];

async function blocking(url: string, model: string, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await postJson(`${url}/v1/chat/completions`, { model, messages, ...body });
  expect(res.status).toBe(200);
  return JSON.parse(((await res.json()) as any).choices[0].message.content);
}

describe('single-12b-checked end to end', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen3.5-9b'], env: { HUB_ANCHOR: '2026-03-10' } });

  test('streams answer_done, answer_validation, indepth_pending, indepth_done, done; a clean review and grounding settle it checked', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: CLAIMS });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-checked', messages, stream: true });
    const parsed = parseChartSearchStream(await res.text());
    expect(parsed.events.map((e) => e.name)).toEqual(['answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'done']);
    expect(parsed.turns).toEqual(['turn_started', 'answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'turn_done']);
    expect(parsed.settled).toEqual([]);
    const [answerDone, validation, pending, indepthDone, done] = parsed.events.map((e) => e.data as Record<string, any>);
    expect(answerDone.answerValidation.status).toBe('checking');
    expect(answerDone.references.every((r: any) => r.groundingStatus === 'checking' && r.grounded === null)).toBe(true);
    expect(validation.answerValidation).toMatchObject({ status: 'checked', label: 'Checked' });
    for (const ref of validation.references) expect(ref).toMatchObject({ resolutionStatus: 'resolved', groundingStatus: 'verified', grounded: true, support: 'supported' });
    // The multi-citation sentence is one statement checked against its combined source set.
    expect(validation.references[0].groundingChecks).toHaveLength(1);
    expect(validation.references[0]).toMatchObject({ groundingScope: 'source_set', groundingGroup: [2, 3] });
    expect(validation.references[0].groundingChecks[0]).toMatchObject({ claim: 'Weight decreased from 74 kg on 2026-01-10 to 71 kg on 2026-03-02.', source_indices: [2, 3], support: 'supported' });
    // The settled Answer side does not change after answer_validation.
    for (const key of ['answer', 'answerValidation', 'confidence']) expect(pending[key]).toEqual(validation[key]);
    expect(indepthDone.inDepth.validation.review_status).toBe('clean');
    expect(done.inDepth).toEqual(indepthDone.inDepth);
    // [2] is cited by the Answer and by In-Depth point 1: usages and checks merge on one reference.
    const shared = done.references.find((r: any) => r.index === 2);
    expect(shared.usage.map((u: any) => u.location)).toEqual(['answer', 'indepth']);
    expect(shared.groundingChecks.map((c: any) => c.location)).toEqual(['answer', 'indepth']);
    expect(shared).toMatchObject({ groundingStatus: 'verified', support: 'supported' });
    expect(done.model).toBe('single-12b-checked');
    expect(done).not.toHaveProperty('status');
    // Each stage routes to its declared model; the reviewer reads the shared context message first.
    const review = ctx.router.chatRequests().find((r) => isCall(r, 'answerReview'))!;
    expect(review.body.model).toBe('gemma-4-12b');
    expect(review.body.response_format.json_schema.name).toBe('rewrite_verdict');
    // The Answer's trend sentence matches a passing temporal check on the same sources: no model needed.
    expect(validation.references[0].groundingChecks[0].method).toBe('deterministic_temporal');
    const groundingCalls = ctx.router.chatRequests().filter((r) => isCall(r, 'grounding'));
    expect(groundingCalls.flatMap((r) => askedPairs(r).map((p) => p.statement))).toEqual(CLAIMS.map((c) => c.replace(/ \[\d\]/, '')));
  });

  test('a localised, chart-quoted reviewer flag labels the Answer needs_review (yellow) and never changes its text', async () => {
    const answer = `${ANSWER} The patient has no known drug allergies [5].`;
    const review = { answer_ok: false, errors: [{ wrong: 'no known drug allergies', chart: '[5] (2025-12-01) Allergy: Penicillin. Reaction: rash', fix: 'A penicillin allergy is recorded.' }], corrected_answer: 'Rewritten text that must never ship.' };
    scriptChecked(ctx.router, { answer, citations: [3, 2, 5], claims: CLAIMS, review: { content: JSON.stringify(review) } });
    const env = await blocking(ctx.hub.url, 'single-12b-checked');
    expect(env.answer).toBe(answer);
    expect(env.answerValidation.status).toBe('needs_review');
    expect(env.answerValidation).not.toHaveProperty('originalAnswer');
    expect(env.answerValidation.issues).toContainEqual(expect.objectContaining({ id: 'answer_review', wrong: 'no known drug allergies', chart: review.errors[0].chart, fix: review.errors[0].fix }));
    expect(env.confidence.answer.level).toBe('yellow');
    expect(env.confidence.answer.note).toContain('Clinical review flagged');
    expect(JSON.stringify(env)).not.toContain('must never ship');
  });

  test.each([
    ['no chart quote', { wrong: '71 kg on 2026-03-02', chart: 'I think it was higher', fix: 'x' }, 'review_doubt'],
    ['quote outside the chart', { wrong: '71 kg on 2026-03-02', chart: '[42] Weight: 80 kg', fix: 'x' }, 'review_doubt'],
    ['wrong text not in the answer', { wrong: 'blood pressure 150/90', chart: '[2] Weight 71 kg', fix: 'x' }, 'review_doubt'],
    ['a latest statement the dated series confirm', { wrong: '71 kg on 2026-03-02', chart: '[2] (2026-03-02) Finding — Weight (kg): 71 kg', fix: 'x' }, 'review_set_aside'],
  ])('a reviewer flag with %s does not count: info %s, the Answer stays checked', async (_name, error, id) => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: CLAIMS, review: { content: JSON.stringify({ answer_ok: false, errors: [error], corrected_answer: '' }) } });
    const env = await blocking(ctx.hub.url, 'single-12b-checked');
    expect(env.answer).toBe(ANSWER);
    expect(env.answerValidation.status).toBe('checked');
    expect(env.answerValidation.issues).toContainEqual(expect.objectContaining({ id, status: 'info' }));
    expect(env.confidence.answer.level).toBe('green');
  });

  test('the reviewer is told which earliest/latest statements the dated series confirm', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: CLAIMS });
    await blocking(ctx.hub.url, 'single-12b-checked');
    const review = ctx.router.chatRequests().find((r) => isCall(r, 'answerReview'))!;
    const text = review.body.messages.map((m: any) => m.content).join('\n');
    expect(text).toContain('CONFIRMED BY THE DATED SERIES');
    expect(text).toMatch(/earliest 74 kg on 2026-01-10 \[3\]/);
    expect(text).toMatch(/latest 71 kg on 2026-03-02 \[2\]/);
  });

  test.each([
    ['malformed JSON', { content: 'The answer looks fine to me.' }],
    ['a failed call', { status: 500, errorBody: { error: { code: 500, message: 'boom', type: 'server_error' } } }],
  ])('a reviewer with %s leaves the Answer unavailable (yellow), text kept, never checked', async (_name, reply) => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: CLAIMS, review: reply });
    const env = await blocking(ctx.hub.url, 'single-12b-checked');
    expect(env.answer).toBe(ANSWER);
    expect(env.answerValidation.status).toBe('unavailable');
    expect(env.answerValidation.issues).toContainEqual(expect.objectContaining({ id: 'answer_review_unavailable' }));
    expect(env.confidence.answer.level).toBe('yellow');
    expect(env.inDepth.status).toBe('complete');
  });

  test('a checker contradicting one statement in five marks exactly that statement; the text is byte-identical; every batch is traced', async () => {
    const sentences = [
      'The latest weight is 71 kg [2].',
      'An earlier weight was 74 kg [3].',
      'A return visit is recorded for 2026-04-01 [4].',
      'A penicillin allergy with rash is documented [5].',
      'The last visit was an adult visit at Clinic A [1].',
    ];
    const answer = sentences.join(' ');
    const grounding = factChecker((p) => (p.statement.includes('Clinic A') ? [differs('adult visit at Clinic A', 'Adult Visit at Clinic B')] : [found(p.statement)]));
    scriptChecked(ctx.router, { answer, citations: [2, 3, 4, 5, 1], claims: [], grounding: { reply: grounding } });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'single-12b-checked', messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'Summarise the chart.' }] });
    const env = JSON.parse(((await res.json()) as any).choices[0].message.content);
    expect(env.answer).toBe(answer);
    const byIndex = new Map(env.references.map((r: any) => [r.index, r]));
    expect((byIndex.get(1) as any)).toMatchObject({ support: 'contradicted', groundingStatus: 'unsupported', grounded: false });
    for (const i of [2, 3, 4, 5]) expect(byIndex.get(i)).toMatchObject({ support: 'supported', groundingStatus: 'verified' });
    expect((byIndex.get(1) as any).groundingChecks[0].record_says).toEqual(['Adult Visit at Clinic B']);
    const contradictions = env.answerValidation.issues.filter((i: any) => i.id === 'citation_grounding');
    expect(contradictions).toHaveLength(1);
    expect(contradictions[0].reason).toContain('Adult Visit at Clinic B');
    expect(env.answerValidation.status).toBe('needs_review');
    expect(env.confidence.answer.level).toBe('red');
    // Five pairs: batches of four and one, sequential, each traced with its pairs and outcome.
    const groundingCalls = ctx.router.chatRequests().filter((r) => isCall(r, 'grounding'));
    expect(groundingCalls.map((r) => askedPairs(r).length)).toEqual([4, 1]);
    const step = (await traceLines(ctx.hub)).at(-1)!.steps.find((s: any) => s.role === 'grounding' && s.stage === 'grounding');
    expect(step.batches).toEqual([
      { batch: 1, items: [0, 1, 2, 3], outcome: 'checked' },
      { batch: 2, items: [4], outcome: 'checked' },
    ]);
    expect(step.support).toMatchObject({ supported: 4, contradicted: 1 });
  });

  test('a failed batch leaves only its own pairs unchecked; the other batch keeps its verdicts', async () => {
    const sentences = ['The latest weight is 71 kg [2].', 'An earlier weight was 74 kg [3].', 'A return visit is recorded for 2026-04-01 [4].', 'A penicillin allergy with rash is documented [5].', 'The last visit was an adult visit at Clinic A [1].'];
    const answer = sentences.join(' ');
    ctx.router.script({ match: { contains: 'STATEMENT: The last visit was' }, status: 500, errorBody: { error: { code: 500, message: 'boom', type: 'server_error' } } });
    scriptChecked(ctx.router, { answer, citations: [2, 3, 4, 5, 1], claims: [] });
    const env = await blocking(ctx.hub.url, 'single-12b-checked', { messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'Summarise the chart.' }] });
    const byIndex = new Map(env.references.map((r: any) => [r.index, r]));
    for (const i of [2, 3, 4, 5]) expect(byIndex.get(i)).toMatchObject({ support: 'supported', groundingStatus: 'verified' });
    expect(byIndex.get(1)).toMatchObject({ support: 'unchecked', groundingStatus: 'unchecked', grounded: null });
    expect(env.answerValidation.status).toBe('unavailable');
    expect(env.answerValidation.issues).toContainEqual(expect.objectContaining({ id: 'citation_grounding_unavailable', source_indices: [1] }));
    expect(env.confidence.answer.level).toBe('yellow');
  });

  test('a statement the record does not address is an info note: the status stays checked (decision 16)', async () => {
    const grounding = factChecker(() => [found('weight 71 kg'), notFound('measured fasting')]);
    const answer = 'The latest weight, measured fasting, is 71 kg [2].';
    scriptChecked(ctx.router, { answer, citations: [2], claims: [], grounding: { reply: grounding } });
    const env = await blocking(ctx.hub.url, 'single-12b-checked');
    expect(env.references[0]).toMatchObject({ support: 'not_addressed', groundingStatus: 'mixed', grounded: null });
    expect(env.answerValidation.status).toBe('checked');
    expect(env.answerValidation.issues).toContainEqual(expect.objectContaining({ id: 'citation_not_addressed', status: 'info' }));
    expect(env.confidence.answer.level).toBe('green');
  });

  test('literal table facts are verified without the model', async () => {
    const blocks = [{ kind: 'table', title: 'Weights', columns: [{ key: 'date', label: 'Date' }, { key: 'weight', label: 'Weight' }], rows: [{ cells: { date: { text: '2026-03-02', refs: [2] }, weight: { text: '71 kg', refs: [2] } } }] }];
    scriptChecked(ctx.router, { answer: 'The latest weight is shown below [2].', citations: [2], blocks, claims: [] });
    const env = await blocking(ctx.hub.url, 'single-12b-checked');
    const checks = env.references[0].groundingChecks;
    expect(checks.filter((c: any) => c.method === 'deterministic_exact').map((c: any) => c.path).sort()).toEqual(['blocks[0].rows[0].cells.date', 'blocks[0].rows[0].cells.weight']);
    const groundingCalls = ctx.router.chatRequests().filter((r) => isCall(r, 'grounding'));
    expect(groundingCalls.flatMap((r) => askedPairs(r).map((p) => p.statement))).toEqual(['The latest weight is shown below.']);
    expect(env.answerValidation.status).toBe('checked');
  });

  test('In-Depth: a reviewer flag is a yellow mark, a contradicted citation a red mark; every claim is kept', async () => {
    const grounding = factChecker((p) => (p.statement.includes('penicillin') ? [differs('penicillin allergy', 'Allergy: Amoxicillin')] : [found(p.statement)]));
    scriptChecked(ctx.router, {
      answer: ANSWER,
      citations: [3, 2],
      claims: CLAIMS,
      grounding: { reply: grounding },
      inDepthReview: { content: JSON.stringify({ drop: [1], issues: '1: the visit date should be checked' }) },
    });
    const env = await blocking(ctx.hub.url, 'single-12b-checked');
    const v = env.inDepth.validation;
    expect(env.inDepth.status).toBe('complete');
    expect(v.claims).toEqual(CLAIMS);
    expect(v.review_status).toBe('flagged');
    expect(v.marked).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ claim_index: 1, check: 'review', level: 'yellow' }),
        expect.objectContaining({ claim_index: 2, check: 'citation_grounding', level: 'red' }),
      ]),
    );
    expect(v.citation_checks.map((c: any) => c.status)).toEqual(['pass', 'fail']);
    expect(env.inDepth.answer).toContain('- The most recent weight, 71 kg');
    expect(env.inDepth.answer).toContain('Allergy: Amoxicillin');
    // Both points are marked: red only when every point is marked.
    expect(env.confidence.in_depth.level).toBe('red');
    expect(env.references.find((r: any) => r.index === 5)).toMatchObject({ support: 'contradicted' });
    // The Answer is not touched by In-Depth marks.
    expect(env.answerValidation.status).toBe('checked');
  });

  test('an unavailable In-Depth review keeps every claim (review_status unavailable, yellow)', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: CLAIMS, inDepthReview: { content: 'not json' } });
    const env = await blocking(ctx.hub.url, 'single-12b-checked');
    expect(env.inDepth.status).toBe('complete');
    expect(env.inDepth.validation.claims).toEqual(CLAIMS);
    expect(env.inDepth.validation.review_status).toBe('unavailable');
    expect(env.confidence.in_depth.level).toBe('yellow');
  });

  test('over a realistic chart, review and In-Depth share ≥ 90% of their prompt with the Answer (decision 8)', async () => {
    const chart = `Patient records (most recent first):\n${syntheticChart(365)}`;
    scriptChecked(ctx.router, { answer: 'The latest weight is 55 kg [1].', citations: [1], claims: ['A penicillin allergy with rash is documented [18].'] });
    await blocking(ctx.hub.url, 'single-12b-checked', { messages: [{ role: 'user', content: chart }, { role: 'user', content: 'What is the latest weight?' }] });
    const line = (await traceLines(ctx.hub)).at(-1)!;
    const byStage = new Map(line.prefix_share.map((p: any) => [p.stage, p.ratio]));
    for (const stage of ['review', 'indepth', 'indepth_review']) expect(byStage.get(stage)).toBeGreaterThanOrEqual(0.9);
    // The router's own cache report is the figure (no extra tokenizer call per stage).
    expect(line.prefix_share.every((p: any) => p.method === 'router_cache')).toBe(true);
  });

  test('a router that reports no cache reuse: the shared prefix is counted exactly instead', async () => {
    const chart = `Patient records (most recent first):\n${syntheticChart(120)}`;
    ctx.router.script({ match: { contains: MARK.inDepth }, content: JSON.stringify({ claims: [] }), usage: { prompt_tokens: 0, completion_tokens: 3 } });
    scriptChecked(ctx.router, { answer: 'The latest weight is 55 kg [1].', citations: [1], claims: [] });
    await blocking(ctx.hub.url, 'single-12b-checked', { messages: [{ role: 'user', content: chart }, { role: 'user', content: 'What is the latest weight?' }] });
    const line = (await traceLines(ctx.hub)).at(-1)!;
    const indepth = line.prefix_share.find((p: any) => p.stage === 'indepth');
    expect(indepth).toMatchObject({ method: 'exact_count' });
    expect(indepth.ratio).toBeGreaterThanOrEqual(0.9);
    expect(ctx.router.requests.filter((r) => r.path === '/tokenize')).toHaveLength(1);
  });

  test('blocking drain returns the post-review envelope with recomputed citations', async () => {
    scriptChecked(ctx.router, { answer: ANSWER, citations: [3, 2], claims: CLAIMS });
    const env = await blocking(ctx.hub.url, 'single-12b-checked');
    expect(env.citations).toEqual([3, 2]);
    expect(env.answerValidation.status).toBe('checked');
    expect(env.references.map((r: any) => r.index).sort()).toEqual([2, 3, 5]);
    expect(CLEAN_REVIEW).toContain('answer_ok');
    expect(MARK.grounding).toBeTruthy();
  });
});
