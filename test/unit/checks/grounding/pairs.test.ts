import { factCheckPrompt, groundingPairs, normaliseClaim, sourceLines, type GroundingPair } from '../../../../server/checks/grounding';
import type { Reference } from '../../../../server/answer/references';
import { answer, resolved, unresolved } from './fixtures';

describe('normaliseClaim', () => {
  test.each<[string, string, string]>([
    ['marker before the full stop', 'Weight was 71 kg [2].', 'Weight was 71 kg.'],
    ['grouped marker', 'HbA1c rose [2, 3] in May.', 'HbA1c rose in May.'],
    ['grouped marker without spaces', 'HbA1c rose [2,3].', 'HbA1c rose.'],
    ['adjacent markers', 'Dose 5 mg [1][4].', 'Dose 5 mg.'],
    ['marker before a comma', 'Weight 71 kg [1], BP 120/80 [2].', 'Weight 71 kg, BP 120/80.'],
    ['leading marker', '[3] Started metformin.', 'Started metformin.'],
    ['newlines and tabs', 'Started\n\tmetformin  [1] ;  stopped [2] !', 'Started metformin; stopped!'],
    ['no markers, text kept', 'No change.', 'No change.'],
    ['bracketed words are not markers', 'Status [administrative] noted.', 'Status [administrative] noted.'],
    ['only markers', ' [1] [2] ', ''],
  ])('%s', (_name, text, want) => {
    expect(normaliseClaim(text)).toBe(want);
  });
});

describe('groundingPairs', () => {
  type Case = [string, Reference[], string[], GroundingPair[]];
  const sentence = 'Weight fell from 75 kg [1] to 71 kg [2].';
  test.each<Case>([
    [
      'a multi-citation sentence ⇒ one pair with the combined source set',
      [resolved(2, [answer(sentence)]), resolved(1, [answer(sentence)])],
      ['answer'],
      [{ claim: 'Weight fell from 75 kg to 71 kg.', location: 'answer', path: '', sourceIndices: [1, 2] }],
    ],
    [
      'the same record in two sentences ⇒ two pairs',
      [resolved(3, [answer('Weight 71 kg [3].'), answer('Seen on 2024-05-02 [3].')])],
      ['answer'],
      [
        { claim: 'Weight 71 kg.', location: 'answer', path: '', sourceIndices: [3] },
        { claim: 'Seen on 2024-05-02.', location: 'answer', path: '', sourceIndices: [3] },
      ],
    ],
    [
      'unresolved references are excluded from the source set',
      [resolved(1, [answer('A [1][9].')]), unresolved(9, [answer('A [1][9].')])],
      ['answer'],
      [{ claim: 'A.', location: 'answer', path: '', sourceIndices: [1] }],
    ],
    [
      'a claim cited only by unresolved references yields no pair',
      [unresolved(9, [answer('A [9].')])],
      ['answer'],
      [],
    ],
    [
      'locations filter: review drafts are not grounded',
      [resolved(1, [{ location: 'answer_review_draft', text: 'Old [1].' }, answer('New [1].'), { location: 'indepth', text: 'Deep [1].' }])],
      ['answer', 'block'],
      [{ claim: 'New.', location: 'answer', path: '', sourceIndices: [1] }],
    ],
    [
      'table cells keep their path; same text in two cells ⇒ two pairs',
      [
        resolved(1, [
          { location: 'block', text: '5 mg', path: 'blocks[0].rows[0].cells.dose' },
          { location: 'block', text: '5 mg', path: 'blocks[0].rows[1].cells.dose' },
        ]),
      ],
      ['block'],
      [
        { claim: '5 mg', location: 'block', path: 'blocks[0].rows[0].cells.dose', sourceIndices: [1] },
        { claim: '5 mg', location: 'block', path: 'blocks[0].rows[1].cells.dose', sourceIndices: [1] },
      ],
    ],
    [
      'same text in answer and in-depth ⇒ separate pairs per location',
      [resolved(1, [answer('A [1].'), { location: 'indepth', text: 'A [1].' }])],
      ['answer', 'indepth'],
      [
        { claim: 'A.', location: 'answer', path: '', sourceIndices: [1] },
        { claim: 'A.', location: 'indepth', path: '', sourceIndices: [1] },
      ],
    ],
    [
      'texts differing only by marker spacing group together; order is first appearance',
      [resolved(4, [answer('B [4].'), answer('A [4].')]), resolved(2, [answer('A  [2] .')])],
      ['answer'],
      [
        { claim: 'B.', location: 'answer', path: '', sourceIndices: [4] },
        { claim: 'A.', location: 'answer', path: '', sourceIndices: [2, 4] },
      ],
    ],
  ])('%s', (_name, refs, locations, want) => {
    expect(groundingPairs(refs, locations)).toEqual(want);
  });

  test('does not mutate the references', () => {
    const refs = [resolved(2, [answer('A [2].')]), resolved(1, [answer('A [2][1].')])];
    const before = JSON.parse(JSON.stringify(refs));
    groundingPairs(refs, ['answer']);
    expect(refs).toEqual(before);
  });
});

describe('sourceLines', () => {
  test('renders [i] lines in the given order and skips records without text', () => {
    const texts: Record<number, string | null> = { 1: '2024-05-02 Weight: 71 kg', 2: null, 3: '2024-06-01 Dose: 5 mg' };
    expect(sourceLines([3, 2, 1], (i) => texts[i] ?? null)).toBe('[3] 2024-06-01 Dose: 5 mg\n[1] 2024-05-02 Weight: 71 kg');
  });

  test('no indices ⇒ empty string', () => {
    expect(sourceLines([], () => 'x')).toBe('');
  });
});

describe('factCheckPrompt', () => {
  test('numbers pairs 1..n and separates them with blank lines', () => {
    const prompt = factCheckPrompt([
      { statement: 'Weight 71 kg.', sources: '[1] Weight: 71 kg' },
      { statement: 'Dose 5 mg.', sources: '[2] Dose: 5 mg\n[3] Dose: 10 mg' },
    ]);
    expect(prompt).toBe(
      'PAIR 1:\nSOURCE:\n[1] Weight: 71 kg\nSTATEMENT: Weight 71 kg.\n\n' + 'PAIR 2:\nSOURCE:\n[2] Dose: 5 mg\n[3] Dose: 10 mg\nSTATEMENT: Dose 5 mg.',
    );
  });

  test('empty batch ⇒ empty string', () => {
    expect(factCheckPrompt([])).toBe('');
  });
});
