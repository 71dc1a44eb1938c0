/**
 * date_format, upcoming_date and last_visit (§6.3, §12 *Temporal*), as tables of
 * (facts, question, answer) → check verdicts and patch.
 */
import { findDateLikeTokens } from '../../../../server/checks/temporal/gate-dates';
import { clinicFacts, failures, gate, makeFacts, regate, verdicts } from './gate-fixtures';

const CLINIC = clinicFacts();
/** Same clinic with a second, future return visit on 2006-07-01 (record [1]). */
const WITH_FUTURE = clinicFacts({
  candidates: [
    { index: 14, date: '2006-05-18', source_date: '2006-04-13' },
    { index: 5, date: '2006-06-01', source_date: '2006-05-18' },
    { index: 1, date: '2006-07-01', source_date: '2006-05-25' },
  ],
});
const NEXT_Q = 'When is the next appointment?';
const LAST_Q = 'When was the last visit?';

describe('date_format', () => {
  test.each<[string, string]>([
    ['unicode hyphens', 'Seen on 2006‐05‐18 [4].'],
    ['en dash', 'Seen on 2006–05–18 [4].'],
    ['stray space', 'Weight was 41 kg on 2006-05- 18 [3].'],
    ['repeated separators', 'The next visit is 2025-10-//13.'],
    ['bracketed part', 'Review on 2026-0-[59].'],
    ['truncated year-month', 'Seen in 2026-02.'],
    ['single-digit month', 'Seen on 2006-5-18.'],
    ['day first', 'Seen on 18/05/2006.'],
    ['impossible calendar date', 'Seen on 2006-02-30.'],
    ['exposed internal id', 'The last visit was D2006_03_03.'],
    ['valid ISO not in the ledger', 'Next review 3025-12-31.'],
  ])('%s ⇒ fail', (_name, answer) => {
    const r = gate(CLINIC, 'Dates?', answer);
    expect(verdicts(r)).toContain('date_format:fail');
    expect(r.checks.find((c) => c.id === 'date_format')?.severity).toBe('block');
  });

  test.each<[string]>([['2006-05- 18'], ['2025-10-//13'], ['2026-0-[59]'], ['2026-02'], ['2006‐05‐18'], ['3025-12-31'], ['D2006_03_03'], ['2006-05-18']])(
    'an empty ledger still rejects %s',
    (date) => {
      const r = gate(makeFacts({ emptyLedger: true, reference: null }), 'Dates?', `Seen on ${date}.`);
      expect(failures(r)).toEqual(['date_format']);
    },
  );

  test('reports at most five offending strings, each once', () => {
    const r = gate(CLINIC, 'Dates?', 'a 2026-02, b 2026-03, c 2026-04, d 2026-05, e 2026-06, f 2026-07, again 2026-02.');
    const check = r.checks.find((c) => c.id === 'date_format');
    expect(check?.reason.match(/`/g)).toHaveLength(10);
  });

  test('allowed_iso_dates extend the ledger', () => {
    expect(verdicts(gate(clinicFacts({ allowedIsoDates: ['3025-12-31'] }), 'Dates?', 'Next review 3025-12-31.'))).toEqual(['date_format:pass']);
  });

  test('ledger dates pass explicitly, and an answer without dates has no date_format check', () => {
    expect(verdicts(gate(CLINIC, 'Dates?', 'Seen on 2006-05-18 [4] and 2006-04-13 [13].'))).toEqual(['date_format:pass']);
    expect(gate(CLINIC, 'Dates?', 'No dates here.').status).toBe('not_applicable');
  });

  test.each<[string]>([['Weight went from 53-52 kg.'], ['BP 120/80 mmHg.'], ['Dose 1234.5 mg.'], ['Between 2005 and 2006.'], ['Years 2005-2006.'], ['Ratio 2006/7.']])(
    'non-dates are not date-like: %s',
    (answer) => expect(findDateLikeTokens(answer).filter((t) => t.kind !== 'iso')).toEqual([]),
  );

  test('a failing date_format with one selected series patches with the series summary', () => {
    const r = gate(CLINIC, 'What is the weight?', 'Weight was 41 kg on 2006-05- 18 [3].');
    expect(failures(r)).toEqual(['date_format']);
    expect(r.patch_answer).toBe('The documented Weight measurements are: 45 kg on 2006-03-03 [20]; 43 kg on 2006-04-13 [12]; 41 kg on 2006-05-18 [3].');
    expect(r.patch_citations).toEqual([20, 12, 3]);
    expect(regate(CLINIC, 'What is the weight?', r).status).toBe('pass');
  });

  test('without a selected series the fallback sentence is used (no patch)', () => {
    expect(gate(CLINIC, 'Dates?', 'The next visit is 2025-10-//13.').patch_answer).toBeNull();
  });
});

describe('upcoming_date', () => {
  test('past return visit called upcoming ⇒ fail, patch cites [5] (§12)', () => {
    const r = gate(CLINIC, NEXT_Q, 'The next return visit is scheduled for 2006-06-01 [5].');
    expect(failures(r)).toEqual(['upcoming_date']);
    expect(r.patch_answer).toBe('No upcoming appointment is documented after 2006-06-06. The latest return-visit date found is 2006-06-01, which is before the reference date [5].');
    expect(r.patch_citations).toEqual([5]);
    expect(regate(CLINIC, NEXT_Q, r).status).toBe('pass');
  });

  test.each<[string, string]>([
    ['"scheduled for <past date>"', 'The patient is scheduled for 2006-06-01 [5].'],
    ['bare "scheduled for"', 'Return visit scheduled for 2006-06-01 [5].'],
    ['"next appointment:"', 'Next appointment: 2006-06-01 [5].'],
    ['date first', '2006-06-01 is the next return visit [5].'],
    ['"due on"', 'Follow-up is due on 2006-06-01 [5].'],
  ])('%s is a future claim ⇒ fail', (_name, answer) => {
    expect(failures(gate(CLINIC, NEXT_Q, answer))).toEqual(['upcoming_date']);
  });

  test.each<[string, string]>([
    ['previous anticipated follow-up', 'The previous anticipated follow-up was 2006-06-01 [5]; no later return visit date is documented.'],
    ['historical scheduled return visit', 'A return visit was scheduled for 2006-06-01 [5], which is before 2006-06-06.'],
    ['historical, last', 'The last scheduled return visit date was 2006-06-01 [5].'],
    ['narrated next visit', 'The next visit after 2006-03-03 was on 2006-04-13 [13].'],
    ['directly negated', 'The patient is not scheduled for any visit after 2006-06-06.'],
    ['negated next', 'There is no next appointment after 2006-06-01 [5].'],
    // Found by the acceptance corpus: the reference date behind a determiner was read as the appointment.
    ['reference point behind "after the"', 'The next return visit after the 2006-05-18 visit [4] is 2006-06-06.'],
  ])('%s is not a future claim', (_name, answer) => {
    expect(failures(gate(CLINIC, NEXT_Q, answer))).toEqual([]);
  });

  test('a framed future candidate date passes explicitly', () => {
    const r = gate(WITH_FUTURE, NEXT_Q, 'The next return visit date is 2006-07-01 [1].');
    expect(verdicts(r)).toEqual(['date_format:pass', 'upcoming_date:pass']);
    expect(r.checks[1].source_indices).toEqual([1]);
  });

  test('a date equal to the reference is reported, not blocked', () => {
    const f = clinicFacts({ candidates: [{ index: 5, date: '2006-06-06', source_date: '2006-05-18' }] });
    expect(verdicts(gate(f, NEXT_Q, 'The next return visit is 2006-06-06 [5].'))).toEqual(['date_format:pass', 'upcoming_date:warn']);
  });

  test('"no upcoming" while a future candidate exists ⇒ fail with the candidate patch', () => {
    const r = gate(WITH_FUTURE, NEXT_Q, 'No upcoming return visit is documented.');
    expect(failures(r)).toEqual(['upcoming_date']);
    expect(r.patch_answer).toBe('The chart documents a future return-visit/appointment candidate on 2006-07-01 [1].');
    expect(r.patch_citations).toEqual([1]);
    expect(regate(WITH_FUTURE, NEXT_Q, r).status).toBe('pass');
  });

  test('a past date framed as upcoming points at the real future candidate', () => {
    const r = gate(WITH_FUTURE, NEXT_Q, 'The next return visit is 2006-06-01 [5].');
    expect(r.patch_answer).toBe('The chart documents a future return-visit/appointment candidate on 2006-07-01 [1].');
  });

  test('bounded no-upcoming pass (severity warn) carries all candidate indices', () => {
    const r = gate(CLINIC, NEXT_Q, 'There is no upcoming return visit; the latest return visit date was 2006-06-01 [5].');
    const check = r.checks.find((c) => c.id === 'upcoming_date');
    expect(check).toMatchObject({ status: 'pass', severity: 'warn', claim: 'There is no upcoming return visit', source_indices: [14, 5] });
    expect(r.status).toBe('pass');
  });

  test.each<[string, string]>([
    ['coordinated', 'No labs are pending and the next return visit is 2006-07-01 [1].'],
    ['semicolon', 'No new labs were ordered; the next return visit is 2006-07-01 [1].'],
    ['subordinate', 'Although no follow-up was scheduled at the 2006-04-13 visit, the next return visit is 2006-07-01 [1].'],
    ['missed visit', 'The patient did not attend the scheduled visit on 2006-06-01 [5]; the next return visit is 2006-07-01 [1].'],
  ])('unrelated %s negation is not a no-upcoming claim', (_name, answer) => {
    const r = gate(WITH_FUTURE, NEXT_Q, answer);
    expect(failures(r)).toEqual([]);
    expect(r.checks.filter((c) => /nothing is upcoming/.test(c.reason))).toEqual([]);
  });

  test('"appointment" wording while candidates are return-visit observations ⇒ warn only', () => {
    const r = gate(WITH_FUTURE, NEXT_Q, 'The next appointment is 2006-07-01 [1].');
    expect(verdicts(r)).toEqual(['date_format:pass', 'upcoming_date:pass', 'upcoming_date:warn']);
    expect(r.status).toBe('warn');
    expect(r.patch_answer).toBeNull();
  });

  test('no upcoming wording in question or answer ⇒ no upcoming check', () => {
    expect(verdicts(gate(CLINIC, 'What is the weight?', 'Weight was 41 kg on 2006-05-18 [3].'))).not.toContain('upcoming_date:pass');
  });
});

describe('last_visit', () => {
  test('wrong last visit ⇒ fail, the patch contains the true date (§12)', () => {
    const r = gate(CLINIC, LAST_Q, 'The last visit was on 2006-04-13 [13].');
    expect(failures(r)).toEqual(['last_visit']);
    expect(r.patch_answer).toBe('The most recent clinical visit/encounter documented in the chart is 2006-05-18 [4].');
    expect(r.patch_answer).toContain('2006-05-18');
    expect(regate(CLINIC, LAST_Q, r).status).toBe('pass');
  });

  test.each<[string, string]>([
    ['plain', 'The last visit was on 2006-05-18 [4].'],
    ['most recent encounter', 'The most recent encounter was on 2006-05-18 [4].'],
    ['last seen', 'The patient was last seen on 2006-05-18 [4].'],
    ['date first', '2006-05-18 was the last visit [4].'],
    ['short single-date answer', '2006-05-18 [4].'],
  ])('correct %s ⇒ explicit pass', (_name, answer) => {
    const r = gate(CLINIC, LAST_Q, answer);
    expect(r.checks.find((c) => c.id === 'last_visit')).toMatchObject({ status: 'pass', source_indices: [4] });
  });

  test.each<[string, string]>([
    ['qualified "before"', 'The last visit before the 2006-05-18 visit was 2006-04-13 [13].'],
    ['return visit', 'The latest return visit date is 2006-06-01 [5].'],
    ['other framing in between', 'At the last visit a return visit was set for 2006-06-01 [5].'],
    ['negated', 'The last visit was not on 2006-04-13 [13].'],
    ['different clause', 'The last visit is documented; the return visit date was 2006-06-01 [5].'],
  ])('%s is not a last-visit claim', (_name, answer) => {
    expect(gate(CLINIC, LAST_Q, answer).checks.filter((c) => c.id === 'last_visit')).toEqual([]);
  });

  // Found by the acceptance corpus: a visit type named as the predicate ("was an adult return visit
  // on D") used to hide the date, so a wrong last visit written this way was never checked.
  test.each<[string, string, string]>([
    ['return visit type, wrong', 'The last visit was an adult return visit on 2006-04-13 [13].', 'last_visit:fail'],
    ['follow-up visit type, wrong', 'The most recent encounter was a follow-up visit on 2006-04-13 [13].', 'last_visit:fail'],
    ['return visit type, correct', 'The last visit was an adult return visit on 2006-05-18 [4].', 'last_visit:pass'],
  ])('visit type as predicate: %s', (_name, answer, want) => {
    expect(verdicts(gate(CLINIC, LAST_Q, answer))).toContain(want);
  });

  test('activity-only chart: a last-visit claim fails with the no-encounter patch (§12)', () => {
    const f = clinicFacts({ encounters: [] });
    const r = gate(f, LAST_Q, 'The last visit was on 2006-05-18 [4].');
    expect(failures(r)).toEqual(['last_visit']);
    expect(r.patch_answer).toBe('No explicit visit/encounter record is documented in the available chart. The latest dated clinical activity is 2006-05-25 [2].');
    expect(regate(f, LAST_Q, r).status).toBe('pass');
  });
});
