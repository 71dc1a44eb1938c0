import { isTemporalQuestion } from '../../../../server/context/sources/querystore/question';

describe('isTemporalQuestion', () => {
  test.each([
    ['When was the last viral load?', true],
    ['What is the latest weight?', true],
    ['How has her weight changed over 6 months?', true],
    ['Any labs in the past 6mo?', true],
    ['What happened on 2025-12-17?', true],
    ['Is the next appointment overdue?', true],
    ['What medications is she on?', false],
    ['List her allergies', false],
    ['Does the patient have diabetes?', false],
    ['', false],
    ['   ', false],
    ['Dosage of lamivudine 150mg', false],
  ])('%j → %s', (q, expected) => {
    expect(isTemporalQuestion(q)).toBe(expected);
  });

  test('a 50,000-character question is scanned once', () => {
    expect(isTemporalQuestion(`${'x '.repeat(25_000)}when`)).toBe(true);
    expect(isTemporalQuestion('-'.repeat(50_000))).toBe(false);
  });
});
