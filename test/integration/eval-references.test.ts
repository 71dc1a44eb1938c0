/**
 * Evaluation profiles (bare output in the hub's chart_answer contract) return `references` for their
 * citations, resolved against the complete ledger (hub-contract §8; issue #33): the validation harness
 * counts citations from `references` only. Legs keep the caller's contract and the [REF] bare shape.
 */
import { postJson, SMALL_CHART, useRouterAndHub } from '../support/hub';

const QUESTION = 'How has the weight changed?';
const messages = [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: QUESTION }];
const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2]. Penicillin allergy [9].';

async function envelopeOf(url: string, model: string, stream = false): Promise<Record<string, any>> {
  const res = await postJson(`${url}/v1/chat/completions`, { model, messages, stream });
  expect(res.status).toBe(200);
  if (!stream) return JSON.parse(((await res.json()) as any).choices[0].message.content);
  // Non-staged streaming: the same content as OpenAI chunks (§3.2).
  const text = await res.text();
  const content = text.split('\n\n').filter((f) => f.startsWith('data: {')).map((f) => JSON.parse(f.slice(6)).choices[0]?.delta?.content ?? '').join('');
  return JSON.parse(content);
}

describe('references on evaluation profiles', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b'] });

  test.each([false, true])('eval-12b-answer-only (stream %s): each citation resolves to its ledger record, unchecked; one outside the ledger is unresolved', async (stream) => {
    ctx.router.script({ content: JSON.stringify({ answer: ANSWER, citations: [3, 2, 9], blocks: [] }) });
    const env = await envelopeOf(ctx.hub.url, 'eval-12b-answer-only', stream);
    expect(env).toMatchObject({ answer: ANSWER, citations: [3, 2, 9], blocks: [], safetyStatus: 'unavailable' });
    expect(env.references).toHaveLength(3);
    const [three, two, nine] = env.references;
    expect(three).toMatchObject({
      index: 3, sourceId: 'inline:3', source: 'inline', resourceType: 'ChartRecord', date: '2026-01-10',
      sourceText: '(2026-01-10) Finding — Weight (kg): 74 kg', resolutionStatus: 'resolved',
      // No grounding runs on this plan: resolved references stay unchecked (decision 16).
      groundingStatus: 'unchecked', grounded: null,
    });
    expect(three.usage).toEqual([{ location: 'answer', text: 'Weight decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].' }]);
    expect(two).toMatchObject({ index: 2, sourceId: 'inline:2', resolutionStatus: 'resolved', groundingStatus: 'unchecked' });
    expect(nine).toEqual({ index: 9, resolutionStatus: 'unresolved', groundingStatus: 'unchecked', grounded: null, usage: [{ location: 'answer', text: 'Penicillin allergy [9].' }] });
  });

  test('an answer citing nothing has an empty references list, so "no references" is the truth', async () => {
    ctx.router.script({ content: JSON.stringify({ answer: 'No weight is recorded.', citations: [], blocks: [] }) });
    const env = await envelopeOf(ctx.hub.url, 'eval-12b-temporal-enforce');
    expect(env.references).toEqual([]);
  });

  test('a low-level answer leg keeps the [REF] bare shape without references', async () => {
    ctx.router.script({ content: JSON.stringify({ answer: ANSWER, citations: [3, 2, 9], blocks: [] }) });
    const env = await envelopeOf(ctx.hub.url, 'answer:gemma-4-12b~off');
    expect(Object.keys(env)).toEqual(['answer', 'citations', 'blocks', 'safetyStatus']);
  });
});
