import { buildContextMessage, commonPrefix, prefixShare, stageMessages } from '../../../server/context/layout';
import { fakeTokenize } from '../../support/fake-router';

/** A 365-record chart, the size the product is measured on. */
const chart = Array.from({ length: 365 }, (_, i) => `[${i + 1}] (2026-0${1 + (i % 9)}-1${i % 10}) Finding — Weight (kg): ${50 + (i % 30)} kg`).join('\n');
const count = async (text: string) => fakeTokenize(text).length;

describe('prompt layout (decision 8)', () => {
  const context = buildContextMessage({ temporalFacts: 'Temporal facts (deterministic JSON): {"reference_date":"2026-03-10"}', chart });
  const answer = stageMessages(context, { instructions: 'Answer from the numbered records. Reply as JSON.', history: [], question: 'How has the weight changed?' })[0].content as string;
  const laterStages = {
    review: stageMessages(context, { instructions: 'Review the draft answer below against the records.\n=== DRAFT ANSWER ===\nWeight fell from 74 kg [3] to 71 kg [2].', history: [], question: 'How has the weight changed?' }),
    indepth: stageMessages(context, { instructions: 'Add 1-3 atomic claims that elaborate the direct answer.\n=== DIRECT ANSWER ===\nWeight fell [3][2].', history: [], question: 'How has the weight changed?' }),
  };

  test('temporal facts come first, then the records, then the stage instructions', () => {
    expect(answer.indexOf('Temporal facts')).toBe(0);
    expect(answer.indexOf('Patient records (most recent first):')).toBeGreaterThan(0);
    expect(answer.indexOf('Answer from the numbered records')).toBeGreaterThan(answer.indexOf('[365]'));
  });

  test.each(Object.entries(laterStages))('the %s stage shares at least 90%% of its prompt tokens as the Answer prompt prefix', async (_stage, messages) => {
    const prompt = messages[0].content as string;
    expect(commonPrefix(answer, prompt).startsWith(context.text)).toBe(true);
    const share = await prefixShare(answer, prompt, count);
    expect(share.ratio).toBeGreaterThanOrEqual(0.9);
    expect(share.shared_prefix_tokens).toBeLessThanOrEqual(share.prompt_tokens);
  });

  test('a different chart shares (almost) nothing', async () => {
    const other = stageMessages(buildContextMessage({ chart: 'x' }), { instructions: 'i', history: [], question: 'q' })[0].content as string;
    expect((await prefixShare(answer, other, count)).ratio).toBeLessThan(0.5);
  });
});
