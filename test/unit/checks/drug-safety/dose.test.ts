/** Clause-local dose attribution and overdose by age band and mg/kg (§9.4), as tables of cases. */
import { frequencyPerDay, splitClauses, statedDoses } from '../../../../server/checks/drug-safety/dose';
import { checkOverdose } from '../../../../server/checks/drug-safety/overdose';
import { approvedPackage, entry } from './helpers';

const pkg = approvedPackage();
const ibuprofen = entry(pkg, 'ibuprofen');
const paracetamol = entry(pkg, 'paracetamol');
const inPlay = [ibuprofen, paracetamol];

describe('clauses and frequency', () => {
  test('splits on ; ! ? newline and on a full stop not followed by a digit', () => {
    expect(splitClauses('give 2.5 mg. then rest; ok? yes!\nno').map((c) => c.text.trim())).toEqual(['give 2.5 mg', 'then rest', 'ok', 'yes', 'no']);
  });

  test.each([
    ['every 8 hours', 3],
    ['every 6 hours', 4],
    ['every 4-6 hours', 6],
    ['q6h', 4],
    ['q 12 h', 2],
    ['8-hourly', 3],
    ['four times a day', 4],
    ['qid', 4],
    ['three times daily', 3],
    ['tid', 3],
    ['twice daily', 2],
    ['bid', 2],
    ['once daily', 1],
    ['as needed', 1],
  ])('"%s" is %i doses a day', (text, n) => {
    expect(frequencyPerDay(text)).toBe(n);
  });
});

describe('statedDoses', () => {
  test.each<[string, string, Array<{ mg: number; perDay: number }>]>([
    ['a stated dose with its frequency', 'Ibuprofen 600 mg every 8 hours.', [{ mg: 600, perDay: 3 }]],
    ['a decimal dose survives clause splitting', 'Give ibuprofen 2.5 mg twice daily.', [{ mg: 2.5, perDay: 2 }]],
    ['a thousands separator', 'Ibuprofen 1,200 mg once daily.', [{ mg: 1200, perDay: 1 }]],
    ['"maximum 2400 mg" is a limit, not a dose', 'Ibuprofen 400 mg every 8 hours, maximum 2400 mg per day.', [{ mg: 400, perDay: 3 }]],
    ['"do not exceed" is a limit cue', 'Ibuprofen: do not exceed 3200 mg.', []],
    ['"up to" is a limit cue', 'Ibuprofen up to 800 mg.', []],
    ['mg/kg is a rate, not a dose', 'Ibuprofen 10 mg/kg every 8 hours.', []],
    ['a per-day amount keeps frequency 1', 'Ibuprofen 2400 mg/day.', [{ mg: 2400, perDay: 1 }]],
    ['frequency does not bleed across sentences', 'Ibuprofen 400 mg. Paracetamol 500 mg every 4 hours.', [{ mg: 400, perDay: 1 }]],
    ['the nearest alias owns the dose', 'Ibuprofen 200 mg and paracetamol 1000 mg every 6 hours.', [{ mg: 200, perDay: 4 }]],
    ['a clause not naming the drug has none of its doses', 'Take 600 mg every 8 hours.', []],
    ['an alias inside a word does not count', 'Ibuprofenate 600 mg every 8 hours.', []],
  ])('%s', (_name, answer, expected) => {
    expect(statedDoses(answer, ibuprofen, inPlay).map(({ mg, perDay }) => ({ mg, perDay }))).toEqual(expected);
  });

  test('a dose far from any alias belongs to no drug', () => {
    const far = `Ibuprofen is an NSAID ${'that is widely used for pain and fever '.repeat(4)}600 mg.`;
    expect(statedDoses(far, ibuprofen, inPlay)).toEqual([]);
  });
});

describe('checkOverdose', () => {
  const doses = (answer: string) => statedDoses(answer, ibuprofen, inPlay);

  test.each<[string, string, number | null, number | null, string | null]>([
    ['per-dose limit fires below the daily ceiling (pinned §9.4)', 'Ibuprofen 600 mg every 8 hours', 40, 50, "stated dose 600 mg exceeds the 10 mg/kg per-dose maximum for the patient's 50 kg weight"],
    ['daily maximum for a 5-year-old (pinned §9.4)', 'Ibuprofen 600 mg every 6 hours', 5, null, 'stated dose ~2400 mg/day exceeds the 1200 mg/day maximum for ages 2-11'],
    ['overdose by daily total', 'Ibuprofen 800 mg four times a day', 40, null, 'stated dose ~3200 mg/day exceeds the 2400 mg/day maximum for ages 12-120'],
    ['one warning when both exceed: the daily one', 'Ibuprofen 800 mg every 6 hours', 40, 50, 'stated dose ~3200 mg/day exceeds the 2400 mg/day maximum for ages 12-120'],
    ['under the maximum is not flagged', 'Ibuprofen 400 mg every 8 hours', 40, 70, null],
    ['no weight: the per-dose arm is off', 'Ibuprofen 600 mg every 8 hours', 40, null, null],
    ['band with no published maximum checks per dose only', 'Ibuprofen 100 mg every 6 hours', 1, 8, "stated dose 100 mg exceeds the 10 mg/kg per-dose maximum for the patient's 8 kg weight"],
  ])('%s', (_name, answer, age, weight, detail) => {
    const out = checkOverdose(ibuprofen, doses(answer), { ageYears: age, weightKg: weight });
    if (detail === null) expect(out).toEqual({ kind: 'none' });
    else expect(out).toEqual({ kind: 'warning', warning: { type: 'overdose', drug: 'Ibuprofen', detail, severity: null } });
  });

  test('a stated dose without an age, or without a band, is reported as unchecked', () => {
    expect(checkOverdose(ibuprofen, doses('Ibuprofen 600 mg'), { ageYears: null, weightKg: 50 })).toEqual({ kind: 'unchecked', reason: 'age_unknown' });
    expect(checkOverdose(ibuprofen, doses('Ibuprofen 600 mg'), { ageYears: 130, weightKg: 50 })).toEqual({ kind: 'unchecked', reason: 'no_age_band' });
    expect(checkOverdose(ibuprofen, [], { ageYears: null, weightKg: null })).toEqual({ kind: 'none' });
  });
});
