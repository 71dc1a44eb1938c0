/** The `answer-review:` leg's payload from the last user message (§4.4, §7.3). */
import { parseAnswerToReview } from '../../../../server/checks/review/payload';

const PAYLOAD = { schema_version: 'answer_to_review.v1', original_question: 'Latest weight?', answer: 'Weight was 71 kg [1].', citations: [1], blocks: [] };
const EXPECTED = { original_question: 'Latest weight?', answer: 'Weight was 71 kg [1].', citations: [1], blocks: [] };

describe('parseAnswerToReview', () => {
  test.each<[string, string]>([
    ['raw', JSON.stringify(PAYLOAD)],
    ['raw, indented', JSON.stringify(PAYLOAD, null, 2)],
    ['fenced', `Please review:\n\`\`\`json\n${JSON.stringify(PAYLOAD)}\n\`\`\``],
    ['braces in prose', `Review this answer ${JSON.stringify(PAYLOAD)} thanks.`],
    ['nested', JSON.stringify({ answer_to_review: PAYLOAD })],
    ['nested in prose', `Here: ${JSON.stringify({ answer_to_review: PAYLOAD })}`],
    ['schema_version absent', JSON.stringify({ ...PAYLOAD, schema_version: undefined })],
  ])('%s', (_name, text) => {
    expect(parseAnswerToReview(text)).toEqual(EXPECTED);
  });

  test.each<[string, Record<string, unknown>, unknown]>([
    ['citations: integers only', { answer: 'A', citations: [1, '2', 3.5, null, 4] }, { original_question: '', answer: 'A', citations: [1, 4], blocks: [] }],
    ['citations not a list ⇒ []', { answer: 'A', citations: '1,2' }, { original_question: '', answer: 'A', citations: [], blocks: [] }],
    ['blocks kept as given', { answer: 'A', blocks: [{ kind: 'table' }] }, { original_question: '', answer: 'A', citations: [], blocks: [{ kind: 'table' }] }],
    ['blocks not a list ⇒ []', { answer: 'A', blocks: {} }, { original_question: '', answer: 'A', citations: [], blocks: [] }],
    ['question not a string ⇒ empty', { answer: 'A', original_question: 5 }, { original_question: '', answer: 'A', citations: [], blocks: [] }],
    ['empty answer is still a payload', { answer: '' }, { original_question: '', answer: '', citations: [], blocks: [] }],
  ])('%s', (_name, obj, expected) => {
    expect(parseAnswerToReview(JSON.stringify(obj))).toEqual(expected);
  });

  test.each<[string, string]>([
    ['wrong schema_version', JSON.stringify({ ...PAYLOAD, schema_version: 'answer_to_review.v2' })],
    ['wrong schema_version when nested', JSON.stringify({ answer_to_review: { ...PAYLOAD, schema_version: 'other' } })],
    ['missing answer', JSON.stringify({ original_question: 'Q', citations: [1] })],
    ['answer not a string', JSON.stringify({ answer: { text: 'A' } })],
    ['plain question', 'What is the latest weight?'],
    ['empty', ''],
  ])('%s ⇒ null', (_name, text) => {
    expect(parseAnswerToReview(text)).toBeNull();
  });
});
