import { literalTableFact, temporalPass, type GroundingPair } from '../../../../server/checks/grounding';
import { pair } from './fixtures';

const CELL = 'blocks[0].rows[0].cells.value';
type Rec = { date: string | null; text: string } | null;
const weight: Rec = { date: '2024-05-02', text: 'Vital signs: Weight: 71 kg' };

describe('literalTableFact', () => {
  test.each<[string, GroundingPair, Rec, boolean]>([
    ['cell equals the record date', pair('2024-05-02', [1], CELL), weight, true],
    ['cell equals the text after the last colon', pair('71 kg', [1], CELL), weight, true],
    ['case and whitespace are normalised', pair('  71   KG ', [1], CELL), weight, true],
    ['citation prefix ignored', pair('[1] 71 kg', [1], CELL), weight, true],
    ['citation prefix with a colon ignored', pair('[1]: 71 kg', [1], CELL), weight, true],
    ['trailing marker ignored', pair('71 kg [1]', [1], CELL), weight, true],
    ['text before the last colon is not the value', pair('Weight: 71 kg', [1], CELL), weight, false],
    ['record without a colon: whole text', pair('metformin 500 mg', [1], CELL), { date: null, text: 'Metformin 500 mg' }, true],
    ['inside another word/number is false', pair('5', [1], CELL), { date: null, text: 'Dose: 15 mg' }, false],
    ['a prefix of the value is false', pair('15', [1], CELL), { date: null, text: 'Dose: 15 mg' }, false],
    ['a different date is false', pair('2024-05-03', [1], CELL), weight, false],
    ['negation the record lacks is false', pair('no 71 kg', [1], CELL), weight, false],
    ['negated value is false', pair('not detected', [1], CELL), { date: null, text: 'Troponin: detected' }, false],
    ['negation present in the record value is literal', pair('negative', [1], CELL), { date: null, text: 'COVID PCR: negative' }, true],
    ['multiple sources are never shortcut', pair('71 kg', [1, 2], CELL), weight, false],
    ['prose (no path) is never shortcut', pair('71 kg', [1]), weight, false],
    ['no record', pair('71 kg', [1], CELL), null, false],
    ['empty claim', pair('[1]', [1], CELL), weight, false],
    ['empty value after the colon', pair('', [1], CELL), { date: null, text: 'Note:' }, false],
  ])('%s', (_name, p, record, want) => {
    expect(literalTableFact(p, record)).toBe(want);
  });
});

describe('temporalPass', () => {
  const passing = [
    { claim: 'Weight fell from 75 kg to 71 kg [1][2].', source_indices: [2, 1] },
    { claim: 'Last visit was on 2024-05-02 [3].', source_indices: [3] },
  ];
  test.each<[string, GroundingPair, boolean]>([
    ['same claim and set', pair('Weight fell from 75 kg to 71 kg.', [1, 2]), true],
    ['set equality ignores order', pair('Last visit was on 2024-05-02.', [3]), true],
    ['whitespace left by markers does not matter', pair('Weight fell from 75 kg  to 71 kg .', [1, 2]), true],
    ['a larger claim is not covered', pair('Weight fell from 75 kg to 71 kg, a worrying trend.', [1, 2]), false],
    ['a smaller source set is not covered', pair('Weight fell from 75 kg to 71 kg.', [1]), false],
    ['a larger source set is not covered', pair('Weight fell from 75 kg to 71 kg.', [1, 2, 4]), false],
    ['a different set of the same size is not covered', pair('Weight fell from 75 kg to 71 kg.', [1, 3]), false],
    ['an unrelated claim', pair('Dose 5 mg.', [3]), false],
  ])('%s', (_name, p, want) => {
    expect(temporalPass(p, passing)).toBe(want);
  });

  test('no passing checks ⇒ false', () => {
    expect(temporalPass(pair('A.', [1]), [])).toBe(false);
  });
});
