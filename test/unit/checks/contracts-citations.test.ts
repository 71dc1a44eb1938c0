import { applyCitationContract, canonicalizeCitationGroups, isSingleClaim } from '../../../server/checks/contracts';
import type { TableBlock } from '../../../server/answer/types';

describe('canonicalizeCitationGroups', () => {
  test.each<[string, string, string]>([
    ['grouped markers', 'Weight fell [18, 17, 15].', 'Weight fell [18][17][15].'],
    ['deduplicated, order kept', 'A [3, 1, 3, 1].', 'A [3][1].'],
    ['no spaces', 'A [2,1].', 'A [2][1].'],
    ['several groups', 'A [1, 2]. B [4,3].', 'A [1][2]. B [4][3].'],
    ['glued after a word only', 'Weight 71 kg[3, 4].', 'Weight 71 kg[3][4].'],
  ])('%s', (_name, text, want) => {
    expect(canonicalizeCitationGroups(text)).toEqual({ text: want, changed: true, malformed: [] });
  });

  test.each<[string, string]>([
    ['single markers', 'A [1][2] and [3].'],
    ['bracketed prose', 'Status [administrative] and [see note].'],
    ['no brackets', 'No citations.'],
    ['empty brackets', 'A [] b [ ].'],
  ])('%s stay untouched', (_name, text) => {
    expect(canonicalizeCitationGroups(text)).toEqual({ text, changed: false, malformed: [] });
  });

  test.each<[string, string, string[]]>([
    ['double brackets', 'A [[18,17]].', ['[[18,17]]']],
    ['double brackets around one index', 'A [[18]].', ['[[18]]']],
    ['glued to words on both sides', 'A x[18,17]y.', ['x[18,17]y']],
    ['glued to the next word', 'A [18,17]y.', ['[18,17]y']],
    ['a non-index in the group', 'A [18, foo].', ['[18, foo]']],
    ['a trailing comma', 'A [18, ].', ['[18, ]']],
    ['semicolon separator', 'A [18; 17].', ['[18; 17]']],
    ['slash shorthand', 'A [1/2/3].', ['[1/2/3]']],
    ['reported once', 'A [18, foo]. B [18, foo].', ['[18, foo]']],
  ])('malformed: %s is reported and left as written', (_name, text, malformed) => {
    expect(canonicalizeCitationGroups(text)).toEqual({ text, changed: false, malformed });
  });

  test('well-formed groups are canonicalised beside malformed ones', () => {
    expect(canonicalizeCitationGroups('A [1, 2]. B [[3,4]].')).toEqual({ text: 'A [1][2]. B [[3,4]].', changed: true, malformed: ['[[3,4]]'] });
  });
});

describe('isSingleClaim', () => {
  test.each<[string, boolean]>([
    ['The latest weight is 71 kg on 2026-03-02.', true],
    ['Weight 71.5 kg, measured at the clinic.', true],
    ['Weight and height were recorded on 2026-03-02.', true],
    ['No upcoming appointments are documented.', true],
    ['No upcoming appointment, follow-up, or return visit is documented after 2026-03-10.', true],
    ['There are no future appointments, return visits and follow-ups documented.', true],
    ['Weight is 71 kg. Height is 170 cm.', false],
    ['Weight is 71 kg; height is 170 cm.', false],
    ['Weight is 71 kg, and height is 170 cm.', false],
    ['Weight fell, but height rose.', false],
    ['Take it daily, or stop if nauseous.', false],
    ['Weight is 71 kg\nHeight is 170 cm', false],
    ['No upcoming appointment is documented, and the CD4 count is 350.', false],
    ['No upcoming appointment is documented; the CD4 count is 350.', false],
    ['No upcoming appointment is documented. The CD4 count is 350.', false],
    ['Weight is 71 kg, or appointment, follow-up is due.', false],
    ['', false],
  ])('%j ⇒ %s', (text, want) => expect(isSingleClaim(text)).toBe(want));
});

const tableWithRefs = (...refs: number[][]): TableBlock => ({
  kind: 'table',
  title: 'T',
  columns: [{ key: 'v', label: 'V' }],
  rows: refs.map((r) => ({ cells: { v: { text: 'x', refs: r } } })),
});

describe('applyCitationContract', () => {
  test.each<[string, { answer: string; declared: number[]; blocks: TableBlock[] }, { answer: string; citations: number[]; changed: boolean }]>([
    ['explicit markers beat declared extras', { answer: 'Weight is 71 kg [2].', declared: [2, 7, 9], blocks: [] }, { answer: 'Weight is 71 kg [2].', citations: [2], changed: true }],
    ['explicit markers add to an empty declared array without a change', { answer: 'Weight is 71 kg [2].', declared: [], blocks: [] }, { answer: 'Weight is 71 kg [2].', citations: [2], changed: false }],
    ['declared order alone is not a change', { answer: 'A [2]. B [1].', declared: [1, 2], blocks: [] }, { answer: 'A [2]. B [1].', citations: [2, 1], changed: false }],
    ['inline markers first, then table refs', { answer: 'See the table [4].', declared: [1], blocks: [tableWithRefs([3], [4, 1])] }, { answer: 'See the table [4].', citations: [4, 3, 1], changed: false }],
    ['table refs alone are explicit usage', { answer: 'Weights are tabulated, and they fell.', declared: [1, 8], blocks: [tableWithRefs([1], [2])] }, { answer: 'Weights are tabulated, and they fell.', citations: [1, 2], changed: true }],
    ['one declared source scoped to single-claim prose', { answer: 'The latest weight is 71 kg.', declared: [2], blocks: [] }, { answer: 'The latest weight is 71 kg [2].', citations: [2], changed: true }],
    ['a multi-source declared set scoped to single-claim prose', { answer: 'Weight fell from 74 kg to 71 kg.', declared: [3, 2, 3], blocks: [] }, { answer: 'Weight fell from 74 kg to 71 kg [3][2].', citations: [3, 2], changed: true }],
    ['prose without final punctuation', { answer: 'Weight 71 kg', declared: [1], blocks: [] }, { answer: 'Weight 71 kg [1]', citations: [1], changed: true }],
    ['question mark kept last', { answer: 'Is weight 71 kg?', declared: [1], blocks: [] }, { answer: 'Is weight 71 kg [1]?', citations: [1], changed: true }],
    ['bounded no-upcoming sentence', { answer: 'No upcoming appointment, follow-up, or return visit is documented.', declared: [4, 5], blocks: [] }, { answer: 'No upcoming appointment, follow-up, or return visit is documented [4][5].', citations: [4, 5], changed: true }],
    ['empty declared and no markers: nothing to do', { answer: 'Weight is 71 kg. Height is 170 cm.', declared: [], blocks: [] }, { answer: 'Weight is 71 kg. Height is 170 cm.', citations: [], changed: false }],
    ['table cells without refs are not usage', { answer: 'Weight is 71 kg.', declared: [1], blocks: [tableWithRefs([])] }, { answer: 'Weight is 71 kg [1].', citations: [1], changed: true }],
  ])('%s', (_name, input, want) => {
    const got = applyCitationContract(input);
    expect(got).toEqual({ ...want, issue: null });
  });

  test.each<[string, string]>([
    ['two sentences', 'Weight is 71 kg. Height is 170 cm.'],
    ['semicolon', 'Weight is 71 kg; height is 170 cm.'],
    ['comma + and', 'Weight is 71 kg, and height is 170 cm.'],
    ['comma + but', 'Weight fell, but the CD4 count rose.'],
    ['no-upcoming sentence coordinated with another claim', 'No upcoming appointment is documented, and the CD4 count is 350.'],
    ['no prose at all', ''],
  ])('not scoped across claims (%s) ⇒ citation_scope', (_name, answer) => {
    const got = applyCitationContract({ answer, declared: [2, 3], blocks: [] });
    expect(got.answer).toBe(answer);
    expect(got.citations).toEqual([2, 3]);
    expect(got.changed).toBe(false);
    expect(got.issue).toMatchObject({ id: 'citation_scope', status: 'fail', severity: 'block', source_indices: [2, 3], claim: answer });
  });

  test('invalid declared indices are dropped before scoping', () => {
    expect(applyCitationContract({ answer: 'Weight is 71 kg.', declared: [0, -1, 2], blocks: [] })).toEqual({ answer: 'Weight is 71 kg [2].', citations: [2], changed: true, issue: null });
    expect(applyCitationContract({ answer: 'A. B.', declared: [0], blocks: [] })).toEqual({ answer: 'A. B.', citations: [], changed: true, issue: null });
  });
});
