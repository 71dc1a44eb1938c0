/**
 * Series selection, the trend branch (single_point_trend, trend_direction, window_scope) and
 * date_value_binding (§6.3, §12 *Temporal*, §13.1 #6 and #7).
 */
import { selectSeries } from '../../../../server/checks/temporal/gate-series';
import { clinicFacts, failures, gate, makeFacts, regate, verdicts } from './gate-fixtures';

const CLINIC = clinicFacts();
const TREND_Q = 'How has the weight changed?';
const concepts = (answer: string, question = '', facts = CLINIC) => selectSeries(facts.numeric_series, answer, question).map((s) => s.series.concept);

describe('series selection', () => {
  const withWfa = makeFacts({
    series: {
      Weight: [{ index: 1, date: '2006-05-18', value: 41, unit: 'kg' }],
      'Weight for age z-score': [{ index: 2, date: '2006-05-18', value: -1.2 }],
      Haemoglobin: [{ index: 3, date: '2006-05-18', value: 11.2, unit: 'g/dL' }],
    },
  });

  test.each<[string, string, string[]]>([
    ['Weight was 41 kg.', '', ['Weight']],
    ['WT 41 kg; the child is gaining.', '', ['Weight']],
    ['Growth is poor.', '', ['Height', 'Weight']],
    ['The CD4 was 350.', '', ['CD4 count']],
    ['It was 41 kg.', 'What is the weight?', ['Weight']],
    ['Nothing relevant.', 'Anything?', []],
  ])('%s (Q: %s)', (answer, question, want) => expect(concepts(answer, question).sort()).toEqual(want));

  test('aliases: hemoglobin/hgb select Haemoglobin', () => {
    expect(concepts('Hgb 11.2 g/dL.', '', withWfa)).toEqual(['Haemoglobin']);
    expect(concepts('Hemoglobin 11.2 g/dL.', '', withWfa)).toEqual(['Haemoglobin']);
  });

  test('a series whose every mention sits inside a longer series name is dropped', () => {
    expect(concepts('Weight for age z-score was -1.2.', '', withWfa)).toEqual(['Weight for age z-score']);
    expect(concepts('Weight for age z-score was -1.2 and weight 41 kg.', '', withWfa).sort()).toEqual(['Weight', 'Weight for age z-score']);
  });
});

describe('single_point_trend', () => {
  test('single-point CD4 trend ⇒ fail + one-point patch (§12)', () => {
    const q = 'How has the CD4 count changed?';
    const r = gate(CLINIC, q, 'The CD4 count has increased since treatment started.');
    expect(failures(r)).toEqual(['single_point_trend']);
    expect(r.patch_answer).toBe('The chart shows one dated CD4 count measurement: 350 cells/µL on 2006-03-03 [18]. A trend cannot be determined from one point.');
    expect(r.patch_citations).toEqual([18]);
    expect(verdicts(regate(CLINIC, q, r))).toEqual(['date_format:pass', 'single_point_trend:pass', 'date_value_binding:pass']);
  });

  test.each<[string]>([
    ['Only one CD4 count is documented (350 cells/µL on 2006-03-03) [18]; a trend cannot be determined from one point.'],
    ['There is a single CD4 measurement, 350 cells/mm3 on 2006-03-03 [18], so no trend can be assessed.'],
    ['A CD4 trend cannot be determined: the only value is 350 cells/µL on 2006-03-03 [18].'],
  ])('a correct answer saying a trend cannot be determined passes (§13.1 #6): %s', (answer) => {
    const r = gate(CLINIC, 'Is the CD4 count increasing?', answer);
    expect(failures(r)).toEqual([]);
    expect(verdicts(r)).toContain('single_point_trend:pass');
  });

  test('an unrelated "could not" is not an acknowledgement', () => {
    const r = gate(CLINIC, 'What is the CD4 trend?', 'The patient could not attend; CD4 was 350 cells/µL on 2006-03-03 [18].');
    expect(verdicts(r)).toContain('single_point_trend:warn');
  });

  test('conformance shape: "Weight is increasing." with one weight point ⇒ fail', () => {
    const one = makeFacts({ series: { Weight: [{ index: 1, date: '2006-05-18', value: 41, unit: 'kg' }] } });
    expect(failures(gate(one, 'Weight?', 'Weight is increasing.'))).toEqual(['single_point_trend']);
  });

  test('a single value without a trend claim, for a trend question ⇒ warn, never fail', () => {
    const r = gate(CLINIC, 'What is the CD4 trend?', 'The CD4 count was 350 cells/µL on 2006-03-03 [18].');
    expect(verdicts(r)).toEqual(['date_format:pass', 'single_point_trend:warn', 'date_value_binding:pass']);
  });

  test('coordinated "weight and height both increased" binds both series', () => {
    const r = gate(CLINIC, 'Growth?', 'Weight and height both increased.');
    expect(verdicts(r)).toEqual(['single_point_trend:fail', 'trend_direction:fail']);
  });
});

describe('trend_direction', () => {
  test('"increased to 52 kg on 2006-05-18" when weight fell ⇒ trend_direction + date_value_binding (§12)', () => {
    const r = gate(CLINIC, TREND_Q, 'Weight increased to 52 kg on 2006-05-18 [3].');
    expect(failures(r)).toEqual(['trend_direction', 'date_value_binding']);
    expect(r.patch_answer).toBe('The documented Weight series decreased from 45 kg on 2006-03-03 [20] to 41 kg on 2006-05-18 [3].');
    expect(r.patch_citations).toEqual([20, 3]);
    expect(verdicts(regate(CLINIC, TREND_Q, r))).toEqual(['date_format:pass', 'trend_direction:pass', 'date_value_binding:pass']);
  });

  test.each<[string, string]>([
    ['overall', 'Weight has been increasing.'],
    ['negated down', 'Weight has not decreased.'],
    ['unchanged', 'Weight remained unchanged.'],
    ['gaining', 'The patient is gaining weight.'],
    ['reversed endpoints', 'Weight increased from 41 kg to 45 kg.'],
    ['pronoun subject', 'Weight was 45 kg on 2006-03-03 [20]. It then increased.'],
    ['dated endpoints', 'Weight rose between 2006-03-03 [20] and 2006-05-18 [3].'],
    ['"continued to"', 'Weight continued to increase, reaching 41 kg on 2006-05-18 [3].'],
    ['"appears to be"', 'Weight appears to be increasing.'],
    ['"since" a dated point', 'Weight has increased since 2006-04-13 [12].'],
  ])('%s ⇒ fail', (_name, answer) => {
    expect(failures(gate(CLINIC, TREND_Q, answer))).toContain('trend_direction');
  });

  test.each<[string, string]>([
    ['verified overall', 'Weight has been decreasing.'],
    ['negated "not gaining" = not up', 'The patient is not gaining weight: 45 kg on 2006-03-03 [20], 41 kg on 2006-05-18 [3].'],
    ['stepwise', 'Weight fell from 45 kg on 2006-03-03 [20] to 43 kg on 2006-04-13 [12] and then to 41 kg on 2006-05-18 [3].'],
    ['noun form', 'There was a significant weight loss: 45 kg on 2006-03-03 [20] to 41 kg on 2006-05-18 [3].'],
    ['pronoun', 'Is it decreasing? Yes, it is decreasing: 45 kg on 2006-03-03 [20] and 41 kg on 2006-05-18 [3].'],
    ['windowed', 'Over the past 6 months weight decreased from 45 kg on 2006-03-03 [20] to 41 kg on 2006-05-18 [3].'],
  ])('%s ⇒ explicit pass (§13.1 #7)', (_name, answer) => {
    const r = gate(CLINIC, TREND_Q, answer);
    expect(failures(r)).toEqual([]);
    expect(verdicts(r)).toContain('trend_direction:pass');
  });

  test('a sub-period claim is judged on its own endpoints', () => {
    const f = makeFacts({ series: { Weight: [{ index: 1, date: '2006-01-01', value: 40, unit: 'kg' }, { index: 2, date: '2006-02-01', value: 45, unit: 'kg' }, { index: 3, date: '2006-03-01', value: 42, unit: 'kg' }] } });
    const r = gate(f, TREND_Q, 'Weight increased from 40 kg on 2006-01-01 [1] to 45 kg on 2006-02-01 [2], then decreased to 42 kg on 2006-03-01 [3].');
    expect(failures(r)).toEqual([]);
    expect(verdicts(r)).toContain('trend_direction:pass');
  });

  test.each<[string, string]>([
    ['counselling', 'Nutritional counselling for weight gain was given on 2006-05-18; weight was 41 kg [3].'],
    ['other noun', 'Weight fell to 41 kg on 2006-05-18 [3] with a rising viral load.'],
    ['compound noun', 'The patient reported hearing loss; weight was 41 kg on 2006-05-18 [3].'],
    ['expectation', 'Weight is expected to increase after ART; it was 41 kg on 2006-05-18 [3].'],
    ['drug dose', 'The cotrimoxazole dose was increased on 2006-04-13; weight was 43 kg on 2006-04-13 [12].'],
    ['lost to follow-up', 'The patient was lost to follow-up after weight was 41 kg on 2006-05-18 [3].'],
    ['other event anchor', 'Weight increased after ART started on 2006-05-25.'],
  ])('incidental direction words are not weight claims: %s', (_name, answer) => {
    expect(failures(gate(CLINIC, 'Summary?', answer))).toEqual([]);
  });
});

describe('window_scope', () => {
  test('trend words and a named window ⇒ one warn per selected series with the documented window', () => {
    const r = gate(CLINIC, 'Has weight changed in the past 12 months?', 'Weight decreased from 45 kg on 2006-03-03 [20] to 41 kg on 2006-05-18 [3].');
    const w = r.checks.filter((c) => c.id === 'window_scope');
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({ status: 'warn', severity: 'warn', source_indices: [20, 3] });
    expect(w[0].reason).toContain('2006-03-03 to 2006-05-18');
    expect(r.status).toBe('warn');
  });

  test('no named window ⇒ no window_scope', () => {
    expect(verdicts(gate(CLINIC, TREND_Q, 'Weight has been decreasing.'))).toEqual(['trend_direction:pass']);
  });
});

describe('date_value_binding', () => {
  const Q = 'What was the weight?';
  test.each<[string, string, number]>([
    ['swapped values across two dates', 'Weight was 43 kg on 2006-03-03 and 45 kg on 2006-04-13.', 2],
    ['invented value', 'Weight was 44 kg on 2006-04-13.', 1],
    ['value on a date without that measurement', 'Weight was 43 kg on 2006-05-25.', 1],
    ['range "53 to 52"', 'Weight went from 53 to 52 kg between 2006-03-03 and 2006-05-18.', 2],
    ['range "53-52"', 'Weight went from 53-52 kg between 2006-03-03 and 2006-05-18.', 2],
    ['range "53–52"', 'Weight went from 53–52 kg between 2006-03-03 and 2006-05-18.', 2],
    ['header date', 'Weight 2006-05-18: 45 kg.', 1],
    ['table row', 'Weight | 2006-05-18 | 45 kg | [3]', 1],
    ['unit only (question names the series)', 'On 2006-05-18 it was 45 kg [3].', 1],
  ])('%s ⇒ fail (%d)', (_name, answer, n) => {
    const r = gate(CLINIC, Q, answer);
    expect(failures(r)).toEqual(Array(n).fill('date_value_binding'));
    expect(r.patch_answer).toBe('The documented Weight measurements are: 45 kg on 2006-03-03 [20]; 43 kg on 2006-04-13 [12]; 41 kg on 2006-05-18 [3].');
    expect(regate(CLINIC, Q, r).status).toBe('pass');
  });

  test.each<[string, string]>([
    ['BMI kg/m2', 'On 2006-05-18 weight was 41 kg [3] and BMI was 18.2 kg/m2.'],
    ['BMI kg/m²', 'On 2006-05-18 weight was 41 kg (BMI 18.2 kg/m²) [3].'],
    ['BMI kg / m2', 'Weight 41 kg on 2006-05-18 [3], BMI 18.2 kg / m2.'],
    ['BMI kg per m2', 'Weight 41 kg on 2006-05-18 [3], BMI 18.2 kg per m2.'],
    ['height cm', 'Height was 150 cm and weight 45 kg on 2006-03-03 [20][21].'],
    ['respectively', 'Weight was 45 kg and 41 kg on 2006-03-03 and 2006-05-18, respectively [20][3].'],
    ['grouped lists', 'On 2006-03-03 and 2006-05-18, weight was 45 and 41 kg [20][3].'],
    ['interleaved', 'Weight was 45 kg on 2006-03-03 [20] and 41 kg on 2006-05-18 [3].'],
    ['parenthesised date', 'Weight 41 kg [3] (2006-05-18), down from 45 kg on 2006-03-03 [20].'],
    ['delta and age ignored', 'The 14-year-old lost 4 kg: weight was 41 kg on 2006-05-18 [3].'],
    ['other event date', 'Weight was 41 kg [3] when ART was started on 2006-05-25.'],
    ['table rows', 'Weight\n2006-03-03 | 45 kg | [20]\n2006-05-18 | 41 kg | [3]'],
    ['rounded to the written precision', 'Weight was 41 kg on 2006-05-18 [3].'],
  ])('%s ⇒ no failure', (_name, answer) => {
    expect(failures(gate(CLINIC, Q, answer))).toEqual([]);
  });

  test('verified values are recorded as an explicit pass with their records (§13.1 #7)', () => {
    const r = gate(CLINIC, Q, 'Weight was 45 kg on 2006-03-03 [20] and 41 kg on 2006-05-18 [3].');
    expect(r.checks.find((c) => c.id === 'date_value_binding')).toMatchObject({ status: 'pass', source_indices: [20, 3] });
  });

  test('respectively pairs are preserved (swapped respectively fails)', () => {
    const r = gate(CLINIC, Q, 'Weight was 41 kg and 45 kg on 2006-03-03 and 2006-05-18, respectively.');
    expect(failures(r)).toEqual(['date_value_binding', 'date_value_binding']);
  });

  const BP = makeFacts({
    reference: '2026-03-10',
    series: {
      Systolic: [{ index: 5, date: '2026-01-10', value: 130, unit: 'mmHg' }, { index: 2, date: '2026-03-02', value: 120, unit: 'mmHg' }],
      Diastolic: [{ index: 6, date: '2026-01-10', value: 85, unit: 'mmHg' }, { index: 3, date: '2026-03-02', value: 80, unit: 'mmHg' }],
    },
  });

  test.each<[string, string[]]>([
    ['Systolic and diastolic were 120 and 80 mmHg on 2026-03-02 [2][3].', []],
    ['Systolic and diastolic were 80 and 120 mmHg on 2026-03-02 [2][3].', ['date_value_binding', 'date_value_binding']],
    ['On 2026-01-10 systolic was 130 mmHg and diastolic 85 mmHg [5][6].', []],
    ['BP was 120/80 mmHg on 2026-03-02 [2][3].', []],
  ])('coordinated same-unit series bound by mention order: %s', (answer, want) => {
    expect(failures(gate(BP, 'Blood pressure?', answer))).toEqual(want);
  });

  test('at most three failures per series', () => {
    const r = gate(CLINIC, Q, 'Weight was 1 kg on 2006-03-03, 2 kg on 2006-04-13, 3 kg on 2006-05-18 and 4 kg on 2006-05-25.');
    expect(failures(r)).toEqual(['date_value_binding', 'date_value_binding', 'date_value_binding']);
  });

  test('sentences without ISO dates are not value-checked', () => {
    expect(failures(gate(CLINIC, Q, 'Weight was 44 kg.'))).toEqual([]);
  });
});

/**
 * Found by the acceptance corpus (test/acceptance/temporal-corpus.test.ts): correct phrasings that
 * used to fail, and wrong claims that used to pass.
 */
describe('acceptance-corpus regressions', () => {
  test.each<[string, string]>([
    ['"measured only once"', 'Height was measured only once (150 cm on 2006-03-03 [21]), so no change can be assessed.'],
    ['"no change can be assessed"', 'Only a single CD4 count is documented (350 cells/µL on 2006-03-03) [18]; no change can be assessed.'],
  ])('a single point acknowledged as %s ⇒ single_point_trend pass, no claim', (_name, answer) => {
    const r = gate(CLINIC, 'Has it changed?', answer);
    expect(failures(r)).toEqual([]);
    expect(verdicts(r)).toContain('single_point_trend:pass');
  });

  test('"no change can be seen" is still a claim, not an acknowledgement', () => {
    expect(failures(gate(CLINIC, TREND_Q, 'No change can be seen in weight since 2006-03-03 [20].'))).toEqual(['trend_direction']);
  });

  test('a range (lowest..highest) over a period is not paired with the period ends', () => {
    expect(failures(gate(CLINIC, 'Weight?', 'Weight has ranged between 41 and 45 kg from 2006-03-03 to 2006-05-18 [20][3].'))).toEqual([]);
    expect(failures(gate(CLINIC, 'Weight?', 'Weight ranged from 41 to 45 kg between 2006-03-03 and 2006-05-18 [20][3].'))).toEqual([]);
    // Every value of the range is still checked for existence.
    expect(failures(gate(CLINIC, 'Weight?', 'Weight has ranged between 41 and 46 kg from 2006-03-03 to 2006-05-18 [20][3].'))).toEqual(['date_value_binding']);
    // A value written right next to its own date is still bound to it.
    expect(failures(gate(CLINIC, 'Weight?', 'Weight ranged from 41 kg on 2006-03-03 [20] to 45 kg on 2006-05-18 [3].'))).toEqual(['date_value_binding', 'date_value_binding']);
  });

  test('a value next to a period ("between D1 and D2") is not bound to the period start', () => {
    const r = gate(CLINIC, TREND_Q, 'Weight trend is downward: 45 kg → 43 kg → 41 kg between 2006-03-03 and 2006-05-18 [20][12][3].');
    expect(failures(r)).toEqual([]);
    expect(verdicts(r)).toContain('date_value_binding:pass');
  });

  test('coordinated deltas over periods are deltas, not measurements', () => {
    const r = gate(CLINIC, TREND_Q, 'Weight fell by 2 kg between 2006-03-03 and 2006-04-13 [20][12] and 2 kg between 2006-04-13 and 2006-05-18 [12][3].');
    expect(failures(r)).toEqual([]);
    // Not a delta: a new measurement after "and" with a verb of its own is still checked.
    expect(failures(gate(CLINIC, 'Weight?', 'Weight fell by 2 kg between 2006-03-03 and 2006-04-13 and weighed 2 kg on 2006-05-18 [3].'))).toEqual(['date_value_binding']);
  });

  test('"rose to X on D1 and fell back to Y on D2": each word is judged at its own end point', () => {
    const f = makeFacts({ series: { Weight: [{ index: 1, date: '2006-01-01', value: 40, unit: 'kg' }, { index: 2, date: '2006-02-01', value: 45, unit: 'kg' }, { index: 3, date: '2006-03-01', value: 42, unit: 'kg' }] } });
    const ok = gate(f, TREND_Q, 'Weight rose to 45 kg on 2006-02-01 [2] and fell back to 42 kg on 2006-03-01 [3].');
    expect(failures(ok)).toEqual([]);
    expect(verdicts(ok)).toContain('trend_direction:pass');
    expect(failures(gate(f, TREND_Q, 'Weight fell to 45 kg on 2006-02-01 [2] and rose to 42 kg on 2006-03-01 [3].'))).toEqual(['trend_direction']);
  });

  test('a lone date is not bound across another value ("height 150 cm and weight 41 kg (D)")', () => {
    expect(failures(gate(CLINIC, 'BMI?', 'With a height of 150 cm [21] and a weight of 41 kg (2006-05-18) [3], the BMI is about 18 kg/m2.'))).toEqual([]);
    expect(failures(gate(CLINIC, 'Height?', 'Height was 150 cm on 2006-05-18 [21].'))).toEqual(['date_value_binding']);
    expect(failures(gate(CLINIC, 'Height?', 'Height was 150 cm [21], and it was recorded again on 2006-05-18.'))).toEqual(['date_value_binding']);
  });

  test('"a further 2 kg" is an increment, not a measurement', () => {
    expect(failures(gate(CLINIC, TREND_Q, 'Weight fell by 2 kg from 2006-03-03 to 2006-04-13 [20][12] and by a further 2 kg by 2006-05-18 [3].'))).toEqual([]);
  });

  test.each<[string, string, string[]]>([
    ['first point as start', 'Weight has increased since the first visit on 2006-03-03 [20].', ['trend_direction']],
    ['first point as start, correct', 'Weight was 45 kg at the first visit on 2006-03-03 [20] and has decreased since.', []],
    ['negated, denied change is real', 'Weight has not decreased since 2006-03-03 [20].', ['trend_direction']],
    ['negated, correct', 'Weight has not increased since 2006-03-03 [20]; it is now 41 kg [3].', []],
  ])('one dated point: %s', (_name, answer, want) => {
    expect(failures(gate(CLINIC, TREND_Q, answer))).toEqual(want);
  });

  test('a shared-unit series named by a multi-word name just before "was <value>" is bound', () => {
    const bp = makeFacts({
      reference: '2026-03-10',
      series: {
        'Systolic blood pressure': [{ index: 5, date: '2026-01-10', value: 130, unit: 'mmHg' }, { index: 2, date: '2026-03-02', value: 120, unit: 'mmHg' }],
        'Diastolic blood pressure': [{ index: 6, date: '2026-01-10', value: 85, unit: 'mmHg' }, { index: 3, date: '2026-03-02', value: 80, unit: 'mmHg' }],
      },
    });
    expect(failures(gate(bp, 'BP?', 'Systolic blood pressure was 130 mmHg on 2026-03-02 [2].'))).toEqual(['date_value_binding']);
    expect(verdicts(gate(bp, 'BP?', 'Systolic blood pressure was 120 mmHg on 2026-03-02 [2].'))).toContain('date_value_binding:pass');
  });
});
