/**
 * judgeReview (§7.3 Target, §12 *Answer review*): which reviewer flags count under label-only
 * review, and the status, issues and note they produce. The Answer is never replaced.
 */
import { judgeReview, type ReviewContext, type ReviewError, type RewriteVerdict } from '../../../../server/checks/review/answer-review';
import { confirmedStatements } from '../../../../server/checks/review/confirmed';
import { makeFacts } from '../temporal/gate-fixtures';

const FACTS = makeFacts({
  reference: '2026-03-10',
  series: {
    'Weight (kg)': [
      { index: 2, date: '2026-01-10', value: 74, unit: 'kg' },
      { index: 1, date: '2026-03-02', value: 71, unit: 'kg' },
    ],
  },
});

const CHART = [
  '[1] (2026-03-02) Finding: Weight (kg): 71',
  '[2] (2026-01-10) Finding: Weight (kg): 74',
  '[3] (2026-02-01) Drug order: Metformin 500 mg twice daily',
].join('\n');

const CTX: ReviewContext = {
  reviewedText: 'Weight fell from 74 kg on 2026-01-10 [2] to 71 kg on 2026-03-02 [1]. Metformin 1000 mg twice daily [3].\nDrug | Dose\nMetformin | 1000 mg',
  ledgerSize: 3,
  chartText: CHART,
  confirmed: confirmedStatements(FACTS),
};

const verdict = (errors: ReviewError[], answer_ok = errors.length === 0): RewriteVerdict => ({ answer_ok, errors, corrected_answer: 'REWRITTEN' });
const err = (wrong: string, chart: string, fix = ''): ReviewError => ({ wrong, chart, fix });

const DOSE = err('Metformin 1000 mg twice daily', '[3] 2026-02-01 Drug order: Metformin 500 mg twice daily', 'The order is 500 mg twice daily.');

describe('judgeReview: outcome per flag', () => {
  test.each<[string, ReviewError, 'checked' | 'needs_review', string]>([
    ['localised + [N] quote ⇒ counts', DOSE, 'needs_review', 'answer_review'],
    ['quote text present in the chart without a marker ⇒ counts', err('metformin 1000 MG', 'Drug order: Metformin 500 mg twice daily', 'It is 500 mg.'), 'needs_review', 'answer_review'],
    ['localised in a table row ⇒ counts', err('Metformin | 1000 mg', '[3]', 'It is 500 mg.'), 'needs_review', 'answer_review'],
    ['wrong text not in the answer ⇒ doubt', err('Metformin 2000 mg', '[3] Metformin 500 mg'), 'checked', 'review_doubt'],
    ['wrong text only markers ⇒ doubt', err('[3]', '[3] Metformin 500 mg'), 'checked', 'review_doubt'],
    ['quote with no chart anchor ⇒ doubt', err('Metformin 1000 mg', 'The guideline says 500 mg'), 'checked', 'review_doubt'],
    ['empty chart quote ⇒ doubt', err('Metformin 1000 mg', ''), 'checked', 'review_doubt'],
    ['marker out of range ⇒ doubt', err('Metformin 1000 mg', '[9] Drug order: Metformin 500 mg twice daily'), 'checked', 'review_doubt'],
    ['marker [0] ⇒ doubt', err('Metformin 1000 mg', '[0] Metformin 500 mg'), 'checked', 'review_doubt'],
    ['one marker of a group out of range ⇒ doubt', err('Metformin 1000 mg', '[3, 4] Metformin 500 mg'), 'checked', 'review_doubt'],
    ['flag against the confirmed earliest ⇒ set aside', err('74 kg on 2026-01-10', '[2] Weight 74', 'The earliest weight was 71 kg.'), 'checked', 'review_set_aside'],
    ['flag against the confirmed latest ⇒ set aside', err('71 kg on 2026-03-02', '[1] Weight 71', 'Should be 74 kg.'), 'checked', 'review_set_aside'],
    ['value alone is not a confirmed statement ⇒ counts', err('Weight fell from 74 kg', '[2] Weight 74', 'Weight rose.'), 'needs_review', 'answer_review'],
  ])('%s', (_name, e, status, id) => {
    const j = judgeReview(verdict([e]), CTX);
    expect(j.status).toBe(status);
    expect(j.issues).toHaveLength(1);
    expect(j.issues[0]).toMatchObject({ id, wrong: e.wrong, chart: e.chart, fix: e.fix });
    expect(j.counted).toEqual(status === 'needs_review' ? [e] : []);
    if (status === 'checked') expect(j.note).toBe('');
  });

  test.each<[string, ReviewError, string]>([
    ['unlocalised', err('Metformin 2000 mg', '[3]'), 'The reviewer quoted text that is not in the answer.'],
    ['unquoted', err('Metformin 1000 mg', 'nothing in the chart'), 'The reviewer flag does not quote the chart.'],
    ['confirmed', err('74 kg on 2026-01-10', '[2]'), 'The reviewer flagged a statement the dated series confirms (Weight (kg): earliest 74 kg on 2026-01-10 [2]).'],
  ])('info issue shape: %s', (_name, e, reason) => {
    expect(judgeReview(verdict([e]), CTX).issues[0]).toEqual({ id: expect.any(String), status: 'info', severity: 'info', reason, wrong: e.wrong, chart: e.chart, fix: e.fix });
  });
});

describe('judgeReview: verdict level', () => {
  test('clean ⇒ checked, no issues, no note', () => {
    expect(judgeReview(verdict([]), CTX)).toEqual({ status: 'checked', issues: [], counted: [], note: '' });
  });

  test('counted flag ⇒ needs_review with a fail/warn issue and a note', () => {
    const j = judgeReview(verdict([DOSE]), CTX);
    expect(j.issues).toEqual([{ id: 'answer_review', status: 'fail', severity: 'warn', reason: DOSE.fix, wrong: DOSE.wrong, chart: DOSE.chart, fix: DOSE.fix }]);
    expect(j.note).toBe('Clinical review flagged: The order is 500 mg twice daily. The answer is shown as written; verify against the chart.');
  });

  test('a flag without fix: default reason, note quotes the wrong text', () => {
    const e = err('Metformin 1000 mg', '[3]');
    const j = judgeReview(verdict([e]), CTX);
    expect(j.issues[0]).toMatchObject({ id: 'answer_review', reason: 'The reviewer flagged this statement.' });
    expect(j.note).toBe('Clinical review flagged: Metformin 1000 mg. The answer is shown as written; verify against the chart.');
  });

  test('a very long fix is shortened in the note but kept in the issue', () => {
    const fix = `The record says ${'x'.repeat(400)}`;
    const j = judgeReview(verdict([{ ...DOSE, fix }]), CTX);
    expect(j.note.length).toBeLessThan(300);
    expect(j.issues[0].fix).toBe(fix);
  });

  test.each<[string, boolean, ReviewError[], 'checked' | 'needs_review']>([
    ['answer_ok true with a counted error ⇒ needs_review', true, [DOSE], 'needs_review'],
    ['answer_ok false with no errors ⇒ checked', false, [], 'checked'],
    ['answer_ok false with only doubts ⇒ checked', false, [err('not in answer', '[1]')], 'checked'],
  ])('%s', (_name, answerOk, errors, status) => {
    expect(judgeReview(verdict(errors, answerOk), CTX).status).toBe(status);
  });

  test('issues keep reply order; only counted flags are counted; the note names the first counted', () => {
    const doubt = err('not in answer', '[1]');
    const aside = err('71 kg on 2026-03-02', '[1]', 'Should be 74.');
    const second = err('Weight fell', '[2]', 'Weight did not fall.');
    const j = judgeReview(verdict([doubt, aside, DOSE, second]), CTX);
    expect(j.issues.map((i) => i.id)).toEqual(['review_doubt', 'review_set_aside', 'answer_review', 'answer_review']);
    expect(j.counted).toEqual([DOSE, second]);
    expect(j.note).toContain(DOSE.fix.replace(/\.$/, ''));
  });

  test('corrected_answer never appears in the judgement', () => {
    expect(JSON.stringify(judgeReview(verdict([DOSE]), CTX))).not.toContain('REWRITTEN');
  });

  test('null verdict ⇒ unavailable', () => {
    expect(judgeReview(null, CTX)).toEqual({
      status: 'unavailable',
      issues: [{ id: 'answer_review_unavailable', status: 'warn', severity: 'warn', reason: 'The model review could not be completed; the answer was not reviewed.' }],
      counted: [],
      note: 'The model review was unavailable; the answer was not reviewed by a second model.',
    });
  });

  test('an empty ledger admits no marker', () => {
    expect(judgeReview(verdict([DOSE]), { ...CTX, ledgerSize: 0 }).status).toBe('checked');
  });
});
