/**
 * The `answer-review:` leg (output `review`, §3.8/§7.3 Target) and `policies.confidence: findings`
 * (§7.8 Target), through HTTP against the fake router.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { CLEAN_REVIEW, MARK, differs, factChecker, found, isCall, scriptChecked } from '../support/checkers';
import { postJson, ROOT, SMALL_CHART, useRouterAndHub } from '../support/hub';

const ANSWER = 'The latest weight is 71 kg [2]. A penicillin allergy with rash is documented [5].';

async function leg(url: string, last: string, model = 'answer-review:qwen3.5-9b'): Promise<Record<string, any>> {
  const res = await postJson(`${url}/v1/chat/completions`, { model, messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: last }] });
  expect(res.status).toBe(200);
  return JSON.parse(((await res.json()) as any).choices[0].message.content);
}

const payload = (answer: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ schema_version: 'answer_to_review.v1', original_question: 'Weight and allergies?', answer, citations: [2, 5], blocks: [], ...extra });

describe('answer-review: leg', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen3.5-9b'], env: { HUB_ANCHOR: '2026-03-10' } });

  test('a clean review returns the review output: answer, citations, blocks, confidence.answer, answerValidation (no safety keys)', async () => {
    ctx.router.script({ content: CLEAN_REVIEW });
    const out = await leg(ctx.hub.url, payload(ANSWER));
    expect(Object.keys(out)).toEqual(['answer', 'citations', 'blocks', 'confidence', 'answerValidation']);
    expect(out).toMatchObject({ answer: ANSWER, citations: [2, 5], blocks: [], confidence: { answer: { level: 'green' } } });
    expect(out.answerValidation).toMatchObject({ status: 'checked', label: 'Checked' });
    const [call] = ctx.router.chatRequests();
    expect(call.body.model).toBe('qwen3.5-9b');
    expect(isCall(call, 'answerReview')).toBe(true);
    expect(call.body.messages[0].content).toContain('Weight and allergies?');
  });

  test('a reviewer flag labels the sent Answer needs_review; the text is returned as sent (fenced payload accepted)', async () => {
    ctx.router.script({ content: JSON.stringify({ answer_ok: false, errors: [{ wrong: 'penicillin allergy with rash', chart: '[5] (2025-12-01) Allergy: Penicillin. Reaction: rash', fix: 'Check the reaction.' }], corrected_answer: 'Replaced text.' }) });
    const out = await leg(ctx.hub.url, `Please review:\n\`\`\`json\n${payload(ANSWER)}\n\`\`\``);
    expect(out.answer).toBe(ANSWER);
    expect(out.answerValidation.status).toBe('needs_review');
    expect(out.confidence.answer.level).toBe('yellow');
    expect(JSON.stringify(out)).not.toContain('Replaced text');
  });

  test('no payload ⇒ unavailable without a model call', async () => {
    const out = await leg(ctx.hub.url, 'Is this right?');
    expect(out.answerValidation.status).toBe('unavailable');
    expect(out.confidence.answer.level).toBe('yellow');
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });

  test('a deterministic temporal patch is adopted (edited, originalAnswer kept) before the review', async () => {
    ctx.router.script({ content: CLEAN_REVIEW });
    const wrong = 'Weight increased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
    const out = await leg(ctx.hub.url, payload(wrong, { citations: [3, 2] }));
    expect(out.answer).not.toBe(wrong);
    expect(out.answerValidation.status).toBe('edited');
    expect(out.answerValidation.originalAnswer).toBe(wrong);
    expect(out.confidence.answer.level).toBe('yellow');
  });
});

describe('policies.confidence: findings', () => {
  // A catalogue with one extra profile: single-12b-checked in findings mode.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-levels-'));
  const doc = YAML.parse(fs.readFileSync(path.join(ROOT, 'profiles/levels.yaml'), 'utf8'), { merge: true });
  const checked = doc.profiles['single-12b-checked'];
  // A copy takes neither the default marker nor the aliases (an alias names exactly one profile).
  doc.profiles['findings-12b'] = { ...checked, label: 'Findings', default: false, aliases: [], visibility: 'evaluation', policies: { ...checked.policies, confidence: 'findings' } };
  delete doc.stage_sets;
  fs.writeFileSync(path.join(dir, 'levels.yaml'), YAML.stringify(doc, { aliasDuplicateObjects: false }));
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen3.5-9b'], env: { HUB_ANCHOR: '2026-03-10', HUB_PROFILES_PATH: path.join(dir, 'levels.yaml') } });

  test('shipped levels are null; each section lists {check, where, status, says}', async () => {
    const grounding = factChecker((p) => (p.statement.includes('penicillin') ? [differs('penicillin allergy', 'Allergy: Amoxicillin')] : [found(p.statement)]));
    scriptChecked(ctx.router, {
      answer: ANSWER,
      citations: [2, 5],
      claims: ['An earlier weight was 74 kg [3].', 'The allergy is to penicillin [5].'],
      grounding: { reply: grounding },
      inDepthReview: { content: JSON.stringify({ drop: [1], issues: '1: date missing' }) },
    });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'findings-12b', messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'Weight and allergies?' }] });
    const env = JSON.parse(((await res.json()) as any).choices[0].message.content);
    expect(env.confidence.answer.level).toBeNull();
    expect(env.confidence.in_depth.level).toBeNull();
    expect(env.confidence.answer.findings).toContainEqual({ check: 'citation', where: 'answer', status: 'fail', says: expect.stringContaining('Allergy: Amoxicillin') });
    expect(env.confidence.in_depth.findings).toEqual(
      expect.arrayContaining([
        { check: 'review', where: 1, status: 'warn', says: 'Review: date missing' },
        { check: 'citation', where: 2, status: 'fail', says: expect.stringContaining('Allergy: Amoxicillin') },
      ]),
    );
    // The status rule does not depend on the confidence mode.
    expect(env.answerValidation.status).toBe('needs_review');
  });

  test('a late failure settles in findings mode too: no levels, the failure listed', async () => {
    ctx.router.script({ match: { contains: MARK.inDepth }, status: 500 });
    scriptChecked(ctx.router, { answer: ANSWER, citations: [2, 5], claims: [] });
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: 'findings-12b', messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: 'Weight and allergies?' }] });
    const env = JSON.parse(((await res.json()) as any).choices[0].message.content);
    expect(env.answer).toBe(ANSWER);
    expect(env.confidence.answer.level).toBeNull();
    expect(env.confidence.in_depth.level).toBeNull();
    expect(env.confidence.answer.findings).toContainEqual({ check: 'review', where: 'answer', status: 'fail', says: 'The hub could not safely complete the remaining checks.' });
  });
});
