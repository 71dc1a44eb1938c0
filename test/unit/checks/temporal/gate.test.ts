/**
 * The Answer gate entry (§6.3): result shape and status rules, patch precedence, applying in each
 * mode, and the hub's own patch texts passing a re-gate.
 */
import { applyTemporalGate, runTemporalGate, TEMPORAL_FALLBACK_ANSWER } from '../../../../server/checks/temporal/gate';
import type { TemporalGateResult } from '../../../../server/checks/temporal/types';
import { clinicFacts, failures, gate, makeFacts, regate, verdicts } from './gate-fixtures';

const CLINIC = clinicFacts();
const DRAFT = { answer: 'draft', citations: [3], blocks: [{ table: 1 }] };

describe('result shape and status', () => {
  test('gate off ⇒ not_applicable with no checks (§12)', () => {
    const r = gate(CLINIC, 'When is the next appointment?', 'The next return visit is 2006-06-01 [5].', 'off');
    expect(r).toEqual({ schema_version: 'temporal_gate.v1', mode: 'off', status: 'not_applicable', checks: [], patch_answer: null, patch_citations: [] });
  });

  test('no facts ⇒ not_applicable with no checks', () => {
    expect(gate(null, 'Q', 'Seen on 2025-10-//13.', 'enforce')).toMatchObject({ mode: 'enforce', status: 'not_applicable', checks: [] });
  });

  test.each<[string, string, TemporalGateResult['status']]>([
    ['nothing temporal', 'The patient takes cotrimoxazole.', 'not_applicable'],
    ['only passing checks', 'The last visit was on 2006-05-18 [4].', 'pass'],
    ['a warning', 'What is the CD4 trend? The CD4 count was 350 cells/µL on 2006-03-03 [18].', 'warn'],
    ['a failure beats warnings', 'The next appointment is 2006-06-01 [5].', 'fail'],
  ])('%s ⇒ %s', (_name, answer, status) => {
    const question = answer.startsWith('What') ? 'What is the CD4 trend?' : 'When was the last visit and the next appointment?';
    expect(gate(CLINIC, question, answer.replace(/^What is the CD4 trend\? /, '')).status).toBe(status);
  });

  test('every check carries the documented fields, claims ≤ 240 characters', () => {
    const long = `The last visit was on 2006-04-13 [13]. ${'Filler words repeat here. '.repeat(20)}`;
    const r = gate(CLINIC, 'When was the last visit?', long.replace(/\. Filler/, ', filler'));
    expect(r.checks.length).toBeGreaterThan(0);
    for (const c of r.checks) {
      expect(Object.keys(c).sort()).toEqual(['claim', 'id', 'reason', 'severity', 'source_indices', 'status']);
      expect(c.claim.length).toBeLessThanOrEqual(240);
    }
  });

  test('no patch when nothing fails', () => {
    expect(gate(CLINIC, 'When was the last visit?', 'The last visit was on 2006-05-18 [4].').patch_answer).toBeNull();
  });
});

describe('patch precedence: upcoming, last visit, trend, date-format fallback, date-value', () => {
  const Q = 'When were the last visit and the next appointment, and how has weight changed?';
  test.each<[string, string, RegExp]>([
    ['upcoming beats last visit', 'The last visit was 2006-04-13 [13] and the next return visit is 2006-06-01 [5].', /^No upcoming appointment/],
    ['last visit beats trend', 'The last visit was 2006-04-13 [13]. Weight increased.', /^The most recent clinical visit/],
    ['trend beats date-value', 'Weight increased to 52 kg on 2006-05-18 [3].', /^The documented Weight series decreased/],
    ['date-format fallback beats date-value', 'Weight was 44 kg on 2006-04-13 [12] and 41 kg on 2006-05- 18.', /^The documented Weight measurements are/],
  ])('%s', (_name, answer, want) => {
    expect(gate(CLINIC, Q, answer).patch_answer).toMatch(want);
  });
});

describe('applying (§6.3)', () => {
  const failing = gate(CLINIC, 'When was the last visit?', 'The last visit was on 2006-04-13 [13].');

  test('enforce + fail with a patch ⇒ patch, citations replaced, blocks cleared', () => {
    expect(applyTemporalGate(failing, DRAFT)).toEqual({
      answer: 'The most recent clinical visit/encounter documented in the chart is 2006-05-18 [4].',
      citations: [4],
      blocks: [],
      applied: 'patch',
      changed: true,
    });
  });

  test('enforce + fail without a patch ⇒ the fixed fallback sentence, no citations', () => {
    const r = gate(CLINIC, 'Dates?', 'The next visit is 2025-10-//13.');
    expect(r.patch_answer).toBeNull();
    expect(applyTemporalGate(r, DRAFT)).toEqual({ answer: TEMPORAL_FALLBACK_ANSWER, citations: [], blocks: [], applied: 'fallback', changed: true });
    expect(TEMPORAL_FALLBACK_ANSWER).toBe(
      'I cannot safely answer this temporal question because deterministic temporal validation found a contradiction in the draft answer. Please verify against the chart.',
    );
  });

  test('warn mode reports but does not patch (§12)', () => {
    const r = gate(CLINIC, 'When was the last visit?', 'The last visit was on 2006-04-13 [13].', 'warn');
    expect(r.status).toBe('fail');
    expect(r.patch_answer).not.toBeNull(); // advisory
    expect(applyTemporalGate(r, DRAFT)).toEqual({ ...DRAFT, applied: 'none', changed: false });
  });

  test('enforce without a failure ⇒ none', () => {
    const r = gate(CLINIC, 'When was the last visit?', 'The last visit was on 2006-05-18 [4].');
    expect(applyTemporalGate(r, DRAFT)).toMatchObject({ applied: 'none', changed: false, answer: 'draft' });
  });
});

describe('the hub passes its own patch texts on a re-gate', () => {
  const withFuture = clinicFacts({ candidates: [{ index: 5, date: '2006-06-01' }, { index: 1, date: '2006-07-01' }] });
  const noEncounters = clinicFacts({ encounters: [] });
  const longSeries = makeFacts({
    series: { Weight: Array.from({ length: 12 }, (_, i) => ({ index: 40 - i, date: `2005-${String(i + 1).padStart(2, '0')}-15`, value: 30 + i, unit: 'kg' })) },
  });
  test.each<[string, ReturnType<typeof makeFacts>, string, string]>([
    ['past upcoming', CLINIC, 'When is the next appointment?', 'The next return visit is 2006-06-01 [5].'],
    ['missed future', withFuture, 'Is there an upcoming appointment?', 'No upcoming return visit is scheduled.'],
    ['last visit', CLINIC, 'When was the last visit?', '2006-04-13 [13].'],
    ['no encounters', noEncounters, 'When was the last visit?', 'The last visit was 2006-05-18 [4].'],
    ['single point', CLINIC, 'Is the CD4 count rising?', 'Yes, the CD4 count is rising.'],
    ['trend', CLINIC, 'Is weight increasing?', 'Yes, weight is increasing.'],
    ['date-value', CLINIC, 'What was the weight?', 'Weight was 44 kg on 2006-04-13.'],
    ['date-format fallback, trend question', CLINIC, 'Has the weight changed?', 'Weight: 45 kg on 2006-03-03 [20], 41 kg on 2006‐05‐18 [3].'],
    ['long series summary', longSeries, 'What were the weights?', 'Weight was 31 kg on 2005-12-15.'],
  ])('%s', (_name, facts, question, answer) => {
    const r = gate(facts, question, answer);
    expect(r.status).toBe('fail');
    expect(r.patch_answer).not.toBeNull();
    const again = regate(facts, question, r);
    expect(failures(again)).toEqual([]);
    expect(again.status).toBe('pass');
  });

  test('patch citations are the records the patch cites', () => {
    const r = gate(CLINIC, 'Is weight increasing?', 'Yes, weight is increasing.');
    expect(r.patch_citations).toEqual([...(r.patch_answer ?? '').matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
  });
});

test('runTemporalGate reads table rows rendered as `cell | cell` lines', () => {
  const r = runTemporalGate({ question: 'What was the weight?', answer: 'Weights below.\n2006-04-13 | Weight | 44 kg', citations: [12], facts: CLINIC, mode: 'enforce' });
  expect(verdicts(r)).toEqual(['date_format:pass', 'date_value_binding:fail']);
});
