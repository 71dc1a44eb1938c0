import { citationMarkers } from '../../../server/answer/citations';
import { parseAnswer } from '../../../server/engine/answer-parse';

describe('citationMarkers', () => {
  test.each([
    ['Weight fell [3] then [2].', [3, 2]],
    ['Grouped [3, 2] and repeated [3].', [3, 2]],
    ['Adjacent [1][2].', [1, 2]],
    ['No markers here.', []],
    ['Zero [0] and words [x] are not citations.', []],
  ])('%s', (text, want) => expect(citationMarkers(text)).toEqual(want));
});

describe('parseAnswer', () => {
  test.each<[string, string, { answer: string; citations: number[]; structured: boolean; blocks?: number }]>([
    ['json object', '{"answer":"Lisinopril 10 mg [1]","citations":[1],"blocks":[]}', { answer: 'Lisinopril 10 mg [1]', citations: [1], structured: true }],
    ['fenced json', '```json\n{"answer":"A [2]","citations":[],"blocks":[]}\n```', { answer: 'A [2]', citations: [2], structured: true }],
    ['citations come from markers, not the declared array', '{"answer":"A [2]","citations":[7],"blocks":[]}', { answer: 'A [2]', citations: [2], structured: true }],
    ['plain prose is a handled case', 'The weight is 71 kg [2].', { answer: 'The weight is 71 kg [2].', citations: [2], structured: false }],
    ['empty output', '', { answer: '', citations: [], structured: false }],
    ['truncated json is not structured', '{"answer":"The weig', { answer: '{"answer":"The weig', citations: [], structured: false }],
    [
      'table refs join citations; malformed blocks dropped',
      JSON.stringify({ answer: 'See table [1].', citations: [], blocks: [{ kind: 'table', title: 'W', columns: [{ key: 'w', label: 'W' }], rows: [{ cells: { w: { text: '71 kg', refs: [2] } } }] }, { kind: 'chart' }] }),
      { answer: 'See table [1].', citations: [1, 2], structured: true, blocks: 1 },
    ],
  ])('%s', (_name, content, want) => {
    const got = parseAnswer(content);
    expect(got.answer).toBe(want.answer);
    expect(got.citations).toEqual(want.citations);
    expect(got.structured).toBe(want.structured);
    expect(got.blocks).toHaveLength(want.blocks ?? 0);
  });
});
