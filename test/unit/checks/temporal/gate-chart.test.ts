/**
 * End to end through the facts builder: chart text → buildTemporalFacts → Answer gate, so the gate
 * is pinned against the facts the hub really computes (concept names, units, encounter summaries).
 */
import { buildTemporalFacts } from '../../../../server/checks/temporal/facts';
import { applyTemporalGate, runTemporalGate } from '../../../../server/checks/temporal/gate';
import type { GateMode } from '../../../../server/checks/temporal/types';

const CHART = [
  '[1] (2006-06-06) Test — Hemoglobin: 11.2 g/dL',
  '[2] (2006-05-18) Encounter: Adult return visit at Clinic A',
  '[3] Finding — Weight (kg), WT): 41.0 kg',
  '[4] Finding — BMI: 18.2 kg/m2',
  '[5] Assessment — Return visit date: 2006-06-01',
  '[6] (2006-04-13) Encounter: Adult return visit at Clinic A',
  '[7] Finding — Weight (kg), WT): 43.0 kg',
  '[8] Assessment — Return visit date: 2006-05-18',
  '[9] (2006-03-03) Encounter: Adult initial visit at Clinic A',
  '[10] Finding — Weight (kg), WT): 45.0 kg',
  '[11] Finding — Height (cm): 150 cm',
  '[12] Test — CD4 COUNT: 350 cells/µL',
  '[13] Drug order — Cotrimoxazole: 960 mg daily',
  '[14] (2006-02-01) Program: HIV care enrollment',
].join('\n');

/** A wall-clock chart with a future return visit, blood pressure and HbA1c. */
const DIABETES = [
  '[1] (2026-03-02) Encounter: Adult Visit at Clinic A',
  '[2] Finding — Weight (kg): 71 kg',
  '[3] Finding — Systolic blood pressure: 142 mmHg',
  '[4] Finding — Diastolic blood pressure: 91 mmHg',
  '[5] Test — HbA1c: 7.9 %',
  '[6] Assessment — Return visit date: 2026-04-01',
  '[7] Medication: Metformin 500 mg twice daily',
  '[8] (2026-01-10) Encounter: Adult Visit at Clinic A',
  '[9] Finding — Weight (kg): 74 kg',
  '[10] Finding — Systolic blood pressure: 150 mmHg',
  '[11] Finding — Diastolic blood pressure: 95 mmHg',
  '[12] Test — HbA1c: 8.4 %',
  '[13] (2025-10-05) Test — HbA1c: 8.1 %',
  '[14] Test — Creatinine: 1.1 mg/dL',
  '[15] (2025-06-01) Encounter: Adult Visit at Clinic A',
  '[16] Finding — Weight (kg): 76 kg',
].join('\n');

const facts = buildTemporalFacts(CHART, { referenceDate: '2006-06-06', anchorMode: 'latest_record' });
const run = (question: string, answer: string, mode: GateMode = 'enforce') => runTemporalGate({ question, answer, citations: [], facts, mode });
const fails = (question: string, answer: string) => run(question, answer).checks.filter((c) => c.status === 'fail').map((c) => c.id);

test('past return visit called upcoming ⇒ fail, patch cites [5], and the patch re-gates clean', () => {
  const q = 'When is the next appointment?';
  const r = run(q, 'The next return visit is scheduled for 2006-06-01 [5].');
  expect(r.status).toBe('fail');
  expect(r.patch_citations).toEqual([5]);
  expect(run(q, r.patch_answer as string).status).toBe('pass');
});

test('wrong last visit ⇒ patch with the true date citing the encounter day', () => {
  const r = run('When was the last visit?', 'The last visit was 2006-04-13 [6].');
  expect(r.patch_answer).toBe('The most recent clinical visit/encounter documented in the chart is 2006-05-18 [2][3][4][5].');
  expect(applyTemporalGate(r, { answer: 'x', citations: [6], blocks: [] })).toMatchObject({ applied: 'patch', citations: [2, 3, 4, 5] });
});

test('single-point CD4 trend ⇒ one-point patch with the chart unit', () => {
  const r = run('How has the CD4 count changed?', 'The CD4 count has improved and is rising.');
  expect(r.patch_answer).toBe('The chart shows one dated CD4 COUNT measurement: 350 cells/µL on 2006-03-03 [12]. A trend cannot be determined from one point.');
});

test('weight "increased to 52 kg on 2006-05-18" ⇒ trend_direction + date_value_binding', () => {
  expect(fails('How has the weight changed?', 'Weight increased to 52 kg on 2006-05-18 [3].')).toEqual(['trend_direction', 'date_value_binding']);
});

test.each<[string]>([
  ['Weight decreased from 45.0 kg on 2006-03-03 [10] to 41.0 kg on 2006-05-18 [3]; BMI was 18.2 kg/m2 [4].'],
  ['On 2006-05-18 weight was 41 kg [3] (BMI 18.2 kg/m²) and hemoglobin was 11.2 g/dL on 2006-06-06 [1].'],
  ['Only one CD4 count is documented (350 cells/µL on 2006-03-03) [12], so a CD4 trend cannot be determined; weight fell from 45 kg to 41 kg.'],
  ['The most recent visit was on 2006-05-18 [2]; the return visit date recorded then, 2006-06-01 [5], has passed and no later one is documented.'],
])('correct answers pass: %s', (answer) => {
  const r = run('How are weight and CD4 changing, and when was the last visit?', answer);
  expect(r.checks.filter((c) => c.status === 'fail')).toEqual([]);
  expect(r.checks.some((c) => c.status === 'pass')).toBe(true);
});

test('activity-only chart: no fabricated encounter, so a last-visit claim fails', () => {
  const activity = buildTemporalFacts('[1] (2026-03-02) Test — Hemoglobin: 11.2 g/dL\n[2] (2026-01-10) Finding — Weight (kg): 74 kg', { referenceDate: '2026-03-10', anchorMode: 'explicit' });
  const r = runTemporalGate({ question: 'When was the last visit?', answer: 'The last visit was on 2026-03-02 [1].', citations: [1], facts: activity, mode: 'enforce' });
  expect(r.checks.map((c) => `${c.id}:${c.status}`)).toContain('last_visit:fail');
  expect(r.patch_answer).toBe('No explicit visit/encounter record is documented in the available chart. The latest dated clinical activity is 2026-03-02 [1].');
});

/**
 * Zero false failures: answers a clinician would accept, in the phrasings writers actually use, must
 * never fail. Each one here once did, or guards a heuristic that could make it fail.
 */
describe('correct answers never fail', () => {
  const diabetes = buildTemporalFacts(DIABETES, { referenceDate: '2026-03-10', anchorMode: 'wall_clock' });
  const gateOn = (f: typeof facts, q: string, a: string) => runTemporalGate({ question: q, answer: a, citations: [], facts: f, mode: 'enforce' });

  test.each<[string, string]>([
    ['Summarize the patient', '14-year-old enrolled in HIV care on 2006-02-01 [14]. Weight has declined from 45.0 kg (2006-03-03) [10] to 43.0 kg (2006-04-13) [7] and 41.0 kg (2006-05-18) [3]. BMI is 18.2 kg/m2 [4]. CD4 was 350 cells/µL on 2006-03-03 [12]. Cotrimoxazole 960 mg daily was started on 2006-03-03 [13].'],
    ['Summarize the patient', '- Weight: 41.0 kg on 2006-05-18 [3] (down from 45.0 kg on 2006-03-03 [10])\n- BMI: 18.2 kg/m2 [4]\n- Hemoglobin: 11.2 g/dL on 2006-06-06 [1]\n- Return visit date recorded: 2006-06-01 [5] (already passed)'],
    ['Is the patient losing weight?', 'Yes. Weight decreased by 4 kg over about 2.5 months, from 45.0 kg on 2006-03-03 [10] to 41.0 kg on 2006-05-18 [3], a loss of roughly 9%.'],
    ['Is the patient losing weight?', 'Yes — a steady decline: 45.0 kg → 43.0 kg → 41.0 kg (2006-03-03, 2006-04-13, 2006-05-18) [10][7][3].'],
    ['Is the patient losing weight?', 'Yes. The weight was 45 kg at the initial visit on 2006-03-03 [10] and 41 kg at the most recent visit on 2006-05-18 [3].'],
    ['Is the patient losing weight?', 'No, weight is not increasing: it fell from 45 kg on 2006-03-03 [10] to 41 kg on 2006-05-18 [3].'],
    ['When was the last visit?', 'The most recent clinic visit was an adult return visit on 2006-05-18 [2]. A hemoglobin test was done later, on 2006-06-06 [1].'],
    ['When was the last visit?', 'Last visit: 2006-05-18 (Adult return visit at Clinic A) [2].'],
    ['When is the next appointment?', 'The return visit date recorded at the last visit was 2006-06-01 [5], which is before today (2006-06-06); no later return visit is documented.'],
    ['When is the next appointment?', 'No upcoming appointment is documented. The most recent return visit date, 2006-06-01 [5], has already passed.'],
    ['When is the next appointment?', 'The next scheduled return visit was 2006-06-01 [5], which has already passed as of 2006-06-06.'],
    ['When is the next appointment?', 'At the 2006-05-18 visit [2], the patient was asked to return on 2006-06-01 [5]; that date has passed.'],
    ['What was the CD4 count?', 'CD4: 350 cells/µL (2006-03-03) [12]. No follow-up CD4 has been recorded since.'],
    ['How has the hemoglobin changed?', 'Only one hemoglobin value is available: 11.2 g/dL on 2006-06-06 [1]. A trend cannot be determined.'],
    ['What is the BMI?', 'BMI was 18.2 kg/m2 on 2006-05-18 [4], with a weight of 41.0 kg [3].'],
    ['Weight change?', 'Between 2006-03-03 and 2006-05-18 the weight dropped from 45 kg to 41 kg [10][3].'],
    ['Weight change?', 'Weight went down 2 kg between each visit: 45 kg on 2006-03-03 [10], 43 kg on 2006-04-13 [7], 41 kg on 2006-05-18 [3].'],
    ['Weight change?', 'Weight on 2006-04-13 was 43.0 kg [7], 2 kg lower than on 2006-03-03 [10].'],
    ['Weight change?', 'Weight trend: decreasing. 2006-03-03: 45.0 kg [10]; 2006-04-13: 43.0 kg [7]; 2006-05-18: 41.0 kg [3].'],
    ['Height?', 'Height was 150 cm on 2006-03-03 [11]; with a weight of 45 kg [10], BMI would have been about 20 kg/m2.'],
    ['Any anemia?', 'Hemoglobin was 11.2 g/dL on 2006-06-06 [1], slightly below the normal range of 12-16 g/dL.'],
    ['Has the weight been stable over the last 6 months?', 'No. Weight fell from 45.0 kg on 2006-03-03 [10] to 41.0 kg on 2006-05-18 [3]; there are no weights before 2006-03-03.'],
  ])('HIV clinic chart — %s: %s', (question, answer) => {
    expect(gateOn(facts, question, answer).checks.filter((c) => c.status === 'fail')).toEqual([]);
  });

  test.each<[string, string]>([
    ['When is the next appointment?', 'The next return visit is scheduled for 2026-04-01 [6].'],
    ['When is the next appointment?', 'A return visit date of 2026-04-01 was recorded at the 2026-03-02 visit [6].'],
    ['How is the diabetes control?', 'HbA1c improved from 8.4% on 2026-01-10 [12] to 7.9% on 2026-03-02 [5], after rising from 8.1% on 2025-10-05 [13].'],
    ['How is the diabetes control?', 'HbA1c decreased from 8.4 % [12] to 7.9 % [5] (2026-01-10 → 2026-03-02).'],
    ['How is the blood pressure?', 'Blood pressure improved from 150/95 mmHg on 2026-01-10 [10][11] to 142/91 mmHg on 2026-03-02 [3][4], but remains above target (<130/80).'],
    ['How is the blood pressure?', 'Systolic blood pressure fell from 150 mmHg (2026-01-10) [10] to 142 mmHg (2026-03-02) [3]; diastolic from 95 to 91 mmHg [11][4].'],
    ['Weight trend over the past year?', 'Weight has decreased over the past year: 76 kg on 2025-06-01 [16], 74 kg on 2026-01-10 [9], 71 kg on 2026-03-02 [2] — a 5 kg loss.'],
    ['When was the last visit?', 'The patient was last seen on 2026-03-02 [1]; the previous visit was on 2026-01-10 [8].'],
    ['Kidney function?', 'Creatinine was 1.1 mg/dL on 2025-10-05 [14]; no more recent creatinine is documented.'],
    ['Meds?', 'Metformin 500 mg twice daily was prescribed on 2026-03-02 [7].'],
    ['Summary', 'At the 2026-03-02 visit [1]: weight 71 kg [2], BP 142/91 mmHg [3][4], HbA1c 7.9% [5]. Return visit on 2026-04-01 [6].'],
    ['Has weight changed since January?', 'Weight has dropped 3 kg since 2026-01-10 [9][2].'],
  ])('diabetes chart — %s: %s', (question, answer) => {
    expect(gateOn(diabetes, question, answer).checks.filter((c) => c.status === 'fail')).toEqual([]);
  });
});
