/** The eval's scoring rules (eval/score.ts, eval/aggregate.ts) and its command line, as tables of cases. */
import { quantiles } from '../../../eval/aggregate';
import { parseArgs } from '../../../eval/cli';
import { escapeHtml } from '../../../eval/report-html';
import { abstained, factHit, forbiddenHits, gateOutcome, gateView, recordIdOf, scoreCitations, type ScoredEnvelope } from '../../../eval/score';

const ref = (sourceId: string | undefined, status = 'resolved', location = 'answer') => ({ sourceId, resolutionStatus: status, usage: [{ location }] });

describe('eval scoring', () => {
  test.each([
    ['inline:3', '3'],
    ['querystore:obs:1b2c-uuid', '1b2c-uuid'],
    ['knowledge-base:mku:mku_x', 'knowledge-base:mku:mku_x'],
  ])('record id of %s is %s', (sourceId, id) => expect(recordIdOf(sourceId)).toBe(id));

  test('citations: resolved answer references against the expected ids; unresolved ones are false positives; In-Depth ones do not count', () => {
    const env: ScoredEnvelope = { references: [ref('inline:3'), ref('inline:9'), ref(undefined, 'unresolved'), ref('inline:2', 'resolved', 'indepth')] };
    expect(scoreCitations(['3', '2'], env)).toEqual({ tp: 1, fp: 2, fn: 1, precision: 1 / 3, recall: 0.5, f1: 0.4 });
    expect(scoreCitations([], { references: [] })).toMatchObject({ precision: null, recall: null, f1: null });
  });

  test.each([
    ['The chart does not record any blood pressure.', true],
    ['No record of an HbA1c was found.', true],
    ['HbA1c is not documented in these records.', true],
    ['I cannot safely answer this temporal question because …', true],
    ['', true],
    ['No upcoming appointment is documented: the last return visit date, 2026-02-01 [4], has passed.', false],
    ['Weight decreased from 74 kg [3] to 71 kg [2].', false],
  ])('abstained(%j) is %s', (answer, expected) => expect(abstained(answer)).toBe(expected));

  test.each([
    [{ value: '71 kg', date: '2026-03-02' }, 'Weight was 71  KG on 2026-03-02 [2].', true],
    [{ value: '71 kg', date: '2026-03-02' }, 'Weight was 71 kg on 2026-03-01 [2].', false],
    [{ trend: 'decreased' as const }, 'The weight fell from 74 kg to 71 kg.', true],
    [{ trend: 'decreased' as const }, 'The weight increased.', false],
    [{ trend: 'stable' as const }, 'Weight remained at 70 kg.', true],
  ])('fact %j in %j: %s', (fact, answer, hit) => expect(factHit(fact, answer)).toBe(hit));

  test('forbidden claims are found case-insensitively', () => {
    expect(forbiddenHits(['weight increased', '68 kg'], 'Weight INCREASED to 70 kg.')).toEqual(['weight increased']);
  });

  test('gate view: temporal fail, validation issues and unresolved references are signals; a gate-off bare envelope did not run', () => {
    const failed = gateView({ temporalGate: { mode: 'enforce', status: 'fail', checks: [{ id: 'date_value_binding', status: 'fail' }, { id: 'trend', status: 'pass' }] }, answerValidation: { status: 'edited', issues: [{ id: 'date_value_binding' }] }, references: [] });
    expect(failed).toEqual({ ran: true, flagged: true, signals: ['temporal:date_value_binding', 'validation:date_value_binding'] });
    expect(gateView({ temporalGate: { mode: 'enforce', status: 'pass', checks: [] }, answerValidation: { status: 'checked', issues: [] } })).toEqual({ ran: true, flagged: false, signals: [] });
    expect(gateView({ references: [ref(undefined, 'unresolved')] })).toEqual({ ran: false, flagged: true, signals: ['reference:unresolved'] });
    expect(gateView({ references: [ref('inline:1')] }).ran).toBe(false);
  });

  test.each([
    [{ ran: true, flagged: false, signals: [] }, { gate: 'right' as const }, 'clean'],
    [{ ran: true, flagged: true, signals: ['temporal:trend'] }, { gate: 'right' as const }, 'false_fail'],
    [{ ran: true, flagged: true, signals: ['temporal:trend'] }, { gate: 'flag' as const, signals: ['temporal:trend'] }, 'caught'],
    [{ ran: true, flagged: true, signals: ['temporal:date_format'] }, { gate: 'flag' as const, signals: ['temporal:trend'] }, 'caught_other'],
    [{ ran: true, flagged: false, signals: [] }, { gate: 'flag' as const }, 'missed'],
    [{ ran: true, flagged: false, signals: [] }, { gate: 'pass' as const }, 'gap_passed'],
    [{ ran: true, flagged: true, signals: ['reference:unresolved'] }, { gate: 'pass' as const }, 'gap_caught'],
    [{ ran: false, flagged: false, signals: [] }, { gate: 'flag' as const }, 'no_gate'],
  ])('gate outcome of %j expecting %j is %s', (view, expected, outcome) => expect(gateOutcome(view, expected)).toBe(outcome));

  test('quantiles are nearest-rank', () => {
    expect(quantiles([])).toEqual({ n: 0, p50: null, p95: null, max: null });
    expect(quantiles([5, 1, 3, 2, 4])).toEqual({ n: 5, p50: 3, p95: 5, max: 5 });
    expect(quantiles(Array.from({ length: 100 }, (_, i) => i + 1))).toMatchObject({ p50: 50, p95: 95 });
  });

  test('report text is escaped', () => {
    expect(escapeHtml(`<script>"a" & 'b'</script>`)).toBe('&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;');
  });
});

describe('eval command line', () => {
  test('flags', () => {
    expect(parseArgs(['--profiles', 'a, b', '--out', '/tmp/x', '--concurrency', '3', '--scripted', '--only', 's1,s2'])).toMatchObject({
      profiles: ['a', 'b'], outDir: '/tmp/x', concurrency: 3, scripted: true, scenarioIds: ['s1', 's2'],
    });
    expect(parseArgs(['--profiles', 'a']).scenariosDir).toMatch(/eval\/scenarios$/);
  });

  test.each([
    [[], /--profiles is required/],
    [['--profiles'], /--profiles needs a value/],
    [['--profiles', 'a', '--concurrency', '0'], /--concurrency must be/],
    [['--profiles', 'a', '--bogus'], /unknown flag --bogus/],
  ])('%j is refused', (argv, message) => expect(() => parseArgs(argv)).toThrow(message));
});
