/**
 * Fence stripping of model replies stays linear (found by the input fuzz test's hostile model output):
 * the former regex backtracked quadratically when a reply opened a fence and then ran into a long
 * whitespace run with no closing fence — 200,000 newlines after "```" blocked the event loop for ~47 s
 * inside parseAnswer, for every writer reply (Answer and the agreement's second writer).
 */
import { parseAnswer, stripFences } from '../../../server/engine/answer-parse';

describe('stripFences', () => {
  test.each([
    ['fenced json', '```json\n{"a":1}\n```', '{"a":1}'],
    ['JSON tag, CRLF: only the LF before the closing fence goes', '```JSON\r\n{"a":1}\r\n```', '{"a":1}\r'],
    ['no tag, surrounding whitespace', '  \n```\n\n{"a":1}\n\n```  \n', '{"a":1}\n'],
    ['another language tag stays in the body', '```js\nx\n```', 'js\nx'],
    ['empty fence', '``````', ''],
    ['whitespace-only fence', '```json \n\t ```', ''],
    ['unclosed fence: unchanged', '```json\n{"a":1}', '```json\n{"a":1}'],
    ['four backticks: unchanged', '````', '````'],
    ['text around the fence: unchanged', 'Here: ```{"a":1}```', 'Here: ```{"a":1}```'],
  ])('%s', (_name, input, expected) => {
    expect(stripFences(input)).toBe(expected);
  });

  test.each([
    ['200,000 newlines after an opening fence', `\`\`\`${'\n'.repeat(200_000)}x`],
    ['200,000 spaces after a tagged opening fence', `\`\`\`json${' '.repeat(200_000)}x`],
    ['an opening fence, a long blank run, then a fence that is not last', `\`\`\`\n${'\n'.repeat(100_000)}\`\`\` trailing`],
  ])('%s: parsed whole (linear time is the lint\'s regexp/no-super-linear-* rules; tests bound work, not time)', (_name, reply) => {
    const draft = parseAnswer(reply);
    expect(draft.structured).toBe(false);
    expect(draft.answer).toBe(reply.trim());
  });
});
