/** Earliest/latest statements the dated series confirm (§7.3 Target). */
import {
  CONFIRMED_HEADER,
  confirmedMentioned,
  confirmedStatements,
  renderConfirmed,
} from '../../../../server/checks/review/confirmed';
import { makeFacts } from '../temporal/gate-fixtures';

const FACTS = makeFacts({
  reference: '2026-03-10',
  series: {
    'Weight (kg)': [
      { index: 2, date: '2026-01-10', value: 74, unit: 'kg' },
      { index: 5, date: '2026-02-01', value: 72.5, unit: 'kg' },
      { index: 1, date: '2026-03-02', value: 71, unit: 'kg' },
    ],
    'CD4 count': [{ index: 7, date: '2026-02-01', value: 350, unit: 'cells/µL' }],
    Glucose: [
      { index: 8, date: '2026-01-11', value: 5.4, unit: '' },
      { index: 9, date: '2026-02-11', value: 6.1, unit: '' },
    ],
  },
});

describe('confirmedStatements', () => {
  test('null facts ⇒ []', () => {
    expect(confirmedStatements(null)).toEqual([]);
  });

  test.each<[string, string[]]>([
    ['CD4 count', ['CD4 count: earliest 350 cells/µL on 2026-02-01 [7]']],
    ['Glucose', ['Glucose: earliest 5.4 on 2026-01-11 [8]', 'Glucose: latest 6.1 on 2026-02-11 [9]']],
    ['Weight (kg)', ['Weight (kg): earliest 74 kg on 2026-01-10 [2]', 'Weight (kg): latest 71 kg on 2026-03-02 [1]']],
  ])('%s', (concept, texts) => {
    const got = confirmedStatements(FACTS).filter((s) => s.concept === concept);
    expect(got.map((s) => s.text)).toEqual(texts);
  });

  test('a statement carries its point', () => {
    const latest = confirmedStatements(FACTS).find((s) => s.concept === 'Weight (kg)' && s.kind === 'latest');
    expect(latest).toEqual({ concept: 'Weight (kg)', kind: 'latest', value: 71, unit: 'kg', date: '2026-03-02', index: 1, text: 'Weight (kg): latest 71 kg on 2026-03-02 [1]' });
  });

  test.each<[number | undefined, number]>([
    [undefined, 3],
    [2, 2],
    [1, 1],
    [0, 0],
  ])('maxSeries %p ⇒ %i series', (maxSeries, count) => {
    const got = confirmedStatements(FACTS, maxSeries === undefined ? {} : { maxSeries });
    expect(new Set(got.map((s) => s.concept)).size).toBe(count);
  });

  test('the default bound is 40 series', () => {
    const series = Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`C${String(i).padStart(2, '0')}`, [{ index: i + 1, date: '2026-01-01', value: i }]]));
    expect(confirmedStatements(makeFacts({ series }))).toHaveLength(40);
  });

  test('an empty series confirms nothing and does not use the bound', () => {
    const facts = makeFacts({ series: { A: [], B: [{ index: 1, date: '2026-01-01', value: 3 }] } });
    expect(confirmedStatements(facts, { maxSeries: 1 }).map((s) => s.concept)).toEqual(['B']);
  });
});

describe('renderConfirmed', () => {
  test('none ⇒ empty string', () => {
    expect(renderConfirmed([])).toBe('');
  });

  test('header, then one statement per line', () => {
    const text = renderConfirmed(confirmedStatements(FACTS));
    const lines = text.split('\n');
    expect(lines[0]).toBe(CONFIRMED_HEADER);
    expect(CONFIRMED_HEADER).toBe('=== CONFIRMED BY THE DATED SERIES (correct; do not flag) ===');
    expect(lines.slice(1)).toEqual(confirmedStatements(FACTS).map((s) => s.text));
  });
});

describe('confirmedMentioned', () => {
  const confirmed = confirmedStatements(FACTS);
  test.each<[string, string | null]>([
    ['The earliest weight was 74 kg on 2026-01-10.', 'Weight (kg): earliest 74 kg on 2026-01-10 [2]'],
    ['74.0 kg on 2026-01-10', 'Weight (kg): earliest 74 kg on 2026-01-10 [2]'],
    ['latest weight 71 kg (2026-03-02) [1]', 'Weight (kg): latest 71 kg on 2026-03-02 [1]'],
    ['full-width ７１ kg on ２０２６-０３-０２', 'Weight (kg): latest 71 kg on 2026-03-02 [1]'],
    ['174 kg on 2026-01-10', null],
    ['74.5 kg on 2026-01-10', null],
    ['74 kg on 2026-01-11', null],
    ['74 kg in January', null],
    ['weight [74] on 2026-01-10', null],
    ['72.5 kg on 2026-02-01 (a middle point)', null],
  ])('%s', (text, expected) => {
    expect(confirmedMentioned(text, confirmed)?.text ?? null).toBe(expected);
  });

  test('the date does not supply the value', () => {
    const facts = makeFacts({ series: { X: [{ index: 1, date: '2026-01-10', value: 10 }] } });
    expect(confirmedMentioned('on 2026-01-10', confirmedStatements(facts))).toBeNull();
    expect(confirmedMentioned('10 on 2026-01-10', confirmedStatements(facts))?.concept).toBe('X');
  });
});
