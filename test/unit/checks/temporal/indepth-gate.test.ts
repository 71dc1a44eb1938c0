/**
 * The In-Depth gate (§6.4 with its Target deltas, §7.7 Target, §13.1 #6/#8/#9): the §12 *In-Depth
 * gate* cases restated for the Target — failed claims are marked, never removed — and the claim-local
 * reading (own words, cited series, own clause). Facts come from small chart texts.
 */
import { buildTemporalFacts } from '../../../../server/checks/temporal/facts';
import { runTemporalGate } from '../../../../server/checks/temporal/gate';
import { runInDepthGate, type InDepthGateResult } from '../../../../server/checks/temporal/indepth-gate';
import type { GateMode, TemporalFacts } from '../../../../server/checks/temporal/types';

const chart = (...lines: string[]) => lines.join('\n');
const factsOf = (text: string) => buildTemporalFacts(text, { referenceDate: '2026-03-10', anchorMode: 'explicit' });

const CHART = chart(
  '[1] (2026-03-02) Encounter: Adult Visit at Clinic A',
  '[2] (2026-03-02) Finding — Weight (kg): 71 kg',
  '[3] (2026-01-10) Finding — Weight (kg): 74 kg',
  '[4] Return visit date: 2026-04-01',
  '[5] (2026-03-02) Test — CD4 count: 350 cells/µL',
  '[6] (2026-01-26) Finding — Height (cm): 160 cm',
  '[7] (2025-11-05) Return visit date: 2026-01-10',
);
const FACTS = factsOf(CHART);
const LEDGER = 7;

const gate = (claims: string[], mode: GateMode = 'enforce', facts: TemporalFacts | null = FACTS, ledgerSize = LEDGER): InDepthGateResult =>
  runInDepthGate({ claims, facts, mode, ledgerSize });

const WEIGHT_TREND = 'Date check: the documented Weight series decreased from 74 kg on 2026-01-10 [3] to 71 kg on 2026-03-02 [2].';
const WEIGHT_SUMMARY = 'Date check: the documented Weight measurements are: 74 kg on 2026-01-10 [3]; 71 kg on 2026-03-02 [2].';

describe('marks, never removes (§7.7 Target)', () => {
  test('a failed claim is marked with a note naming the check and what the chart says; the others stay unmarked', () => {
    const claims = ['Weight was 71 kg on 2026-03-02 [2].', 'Weight increased to 71 kg on 2026-03-02 [2].'];
    const r = gate(claims);
    expect(r).toMatchObject({ schema_version: 'indepth_temporal_gate.v1', mode: 'enforce', status: 'needs_review', claims, removed: [] });
    expect(r.marked).toEqual([{ claim_index: 2, check: 'trend_direction', level: 'red', note: WEIGHT_TREND }]);
    expect(r.checks.map((c) => [c.claim_index, c.claim, c.gate.status])).toEqual([
      [1, claims[0], 'pass'],
      [2, claims[1], 'fail'],
    ]);
  });

  test('every claim failing ⇒ needs_review with every claim kept, one mark each', () => {
    const claims = [
      'Weight increased to 71 kg on 2026-03-02 [2].',
      'Weight was 74 kg on 2026-03-02 [2].',
      'The next return visit is scheduled for 2026-01-10 [7].',
    ];
    const r = gate(claims);
    expect(r.status).toBe('needs_review');
    expect(r.claims).toEqual(claims);
    expect(r.removed).toEqual([]);
    expect(r.marked.map((m) => [m.claim_index, m.check, m.level])).toEqual([
      [1, 'trend_direction', 'red'],
      [2, 'date_value_binding', 'red'],
      [3, 'upcoming_date', 'red'],
    ]);
    expect(r.marked[1].note).toBe(WEIGHT_SUMMARY);
    // The patch the Answer gate would use: what the chart documents instead.
    expect(r.marked[2].note).toBe('Date check: the chart documents a future return-visit/appointment candidate on 2026-04-01 [4].');
  });

  test('an unsafe patch (another series than the one cited) never replaces the claim', () => {
    const claim = 'Weight was 74 kg on 2026-03-02 [5].';
    const r = gate([claim]);
    expect(r.checks[0].gate.patch_answer).not.toBeNull();
    expect(r.claims).toEqual([claim]);
    expect(r.checks[0].evaluated_claim).toBeUndefined();
    expect(r.marked).toHaveLength(1);
  });

  test('warn reports the same marks without touching text; off checks nothing and keeps the claims', () => {
    const claims = ['Weight increased to 71 kg on 2026-03-02 [2].'];
    const warn = gate(claims, 'warn');
    expect([warn.status, warn.claims, warn.marked.map((m) => m.check)]).toEqual(['needs_review', claims, ['trend_direction']]);
    expect(gate(claims, 'off')).toEqual({ schema_version: 'indepth_temporal_gate.v1', mode: 'off', status: 'not_applicable', claims, marked: [], removed: [], checks: [] });
  });
});

describe('statuses', () => {
  test('an honest empty In-Depth is checked, not an error (§13.1 #8)', () => {
    expect(gate([])).toEqual({ schema_version: 'indepth_temporal_gate.v1', mode: 'enforce', status: 'checked', claims: [], marked: [], removed: [], checks: [] });
  });

  test('a non-temporal cited claim records gate not_applicable and is checked', () => {
    const r = gate(['Adherence counselling was provided at the clinic [1].']);
    expect([r.status, r.checks[0].gate.status, r.marked]).toEqual(['checked', 'not_applicable', []]);
  });

  test('an uncited claim is general guidance: not gated, not marked, even with trend words', () => {
    const r = gate(['Weight should be rechecked at every visit.', 'Weight increased.']);
    expect(r.status).toBe('checked');
    expect(r.marked).toEqual([]);
    expect(r.checks.map((c) => c.gate.status)).toEqual(['not_applicable', 'not_applicable']);
  });

  test('no facts: the date checks do not apply but citations are still checked', () => {
    const r = gate(['Weight increased [2].', 'Weight was recorded [12].'], 'enforce', null);
    expect(r.checks.map((c) => c.gate.status)).toEqual(['not_applicable', 'not_applicable']);
    expect(r.marked.map((m) => [m.claim_index, m.check])).toEqual([[2, 'citation_outside_chart']]);
  });
});

describe('each claim on its own words (§6.4 Target, §13.1 #6)', () => {
  test('single-value claims never fail, although the same text would be warned under a trend question', () => {
    const claim = 'The CD4 count was 350 cells/µL on 2026-03-02 [5].';
    const r = gate([claim]);
    expect([r.status, r.checks[0].gate.status, r.marked]).toEqual(['checked', 'pass', []]);
    const underQuestion = runTemporalGate({ question: 'How has the CD4 count changed over time?', answer: claim, citations: [5], facts: FACTS, mode: 'enforce' });
    expect(underQuestion.checks.map((c) => [c.id, c.status])).toContainEqual(['single_point_trend', 'warn']);
  });

  test.each([
    ['cites the series: checked and failed', 'Weight increased steadily [3].', ['trend_direction']],
    ['cites another series only: no trend rule', 'Weight increased steadily [6].', []],
    ['correct direction, cited', 'Weight decreased from 74 kg to 71 kg [3][2].', []],
    ['one-point series with a trend word, cited', 'The CD4 count improved [5].', ['single_point_trend']],
    ['one-point series, trend said to be undeterminable', 'The CD4 count was 350 cells/µL on 2026-03-02 [5]; a trend cannot be determined from one measurement.', []],
  ])('trend rules only for a claim citing a record of the series: %s', (_name, claim, marks) => {
    expect(gate([claim]).marked.map((m) => m.check)).toEqual(marks);
  });

  test.each([
    ['a date in another clause is not the value’s date', 'Weight was 74 kg [3], and a CD4 count was drawn on 2026-03-02 [5].', []],
    ['the date of its own clause is', 'Weight was 74 kg on 2026-03-02 [2], and the CD4 count was 350 cells/µL [5].', ['date_value_binding']],
    ['each clause with its own date', 'Weight was 74 kg on 2026-01-10 [3], but 71 kg on 2026-03-02 [2].', []],
    ['swapped across clauses', 'Weight was 71 kg on 2026-01-10 [3], but 74 kg on 2026-03-02 [2].', ['date_value_binding']],
  ])('a value is checked against the date in its own clause: %s', (_name, claim, marks) => {
    const r = gate([claim]);
    expect(r.marked.map((m) => m.check)).toEqual(marks);
    if (marks.length > 0) expect(r.marked[0].note).toBe(WEIGHT_SUMMARY);
  });

  test('the Answer gate without claimLocal keeps its sentence-wide binding', () => {
    const answer = 'Weight was 74 kg [3], and a CD4 count was drawn on 2026-03-02 [5].';
    expect(runTemporalGate({ question: '', answer, citations: [3, 5], facts: FACTS, mode: 'enforce' }).status).toBe('fail');
    expect(runTemporalGate({ question: '', answer, citations: [3, 5], facts: FACTS, mode: 'enforce', claimLocal: true }).status).toBe('pass');
  });
});

describe('dangling `[` (§6.4 step 2)', () => {
  test('completed on the unique value + unit + date match', () => {
    const r = gate(['Weight was 71 kg on 2026-03-02 [']);
    expect(r.claims).toEqual(['Weight was 71 kg on 2026-03-02 [2]']);
    expect(r.checks[0]).toMatchObject({
      claim: 'Weight was 71 kg on 2026-03-02 [',
      evaluated_claim: 'Weight was 71 kg on 2026-03-02 [2]',
      citation_repair: { status: 'repaired', source_index: 2 },
    });
    expect(r.checks[0].citation_repair?.reason).toContain('Weight');
    expect([r.status, r.marked, r.checks[0].gate.status]).toEqual(['edited', [], 'pass']);
  });

  const AMBIGUOUS = factsOf(
    chart('[1] (2026-03-02) Finding — Weight (kg): 71 kg', '[2] (2026-03-02) Finding — Target weight (kg): 71 kg', '[3] (2026-01-10) Finding — Weight (kg): 74 kg'),
  );

  test.each([
    ['two points match (ambiguous)', 'Weight was 71 kg on 2026-03-02 [', AMBIGUOUS],
    ['wrong unit', 'Weight was 71 lb on 2026-03-02 [', FACTS],
    ['no ISO date', 'Weight was 71 kg at the last visit [', FACTS],
    ['another citation already present', 'Weight was 71 kg [2] on 2026-03-02 [', FACTS],
    ['value of no point on that date', 'Weight was 74 kg on 2026-03-02 [', FACTS],
  ])('not repaired: %s — kept and marked citation_format', (_name, claim, facts) => {
    const r = gate([claim], 'enforce', facts);
    expect(r.claims).toEqual([claim]);
    expect(r.checks[0].citation_repair).toBeUndefined();
    expect(r.marked.filter((m) => m.check === 'citation_format')).toHaveLength(1);
    expect(r.status).toBe('needs_review');
  });

  test.each<GateMode>(['warn', 'off'])('no repair in %s', (mode) => {
    const r = gate(['Weight was 71 kg on 2026-03-02 ['], mode);
    expect(r.claims).toEqual(['Weight was 71 kg on 2026-03-02 [']);
    expect(r.checks.every((c) => c.citation_repair === undefined)).toBe(true);
  });
});

describe('citation syntax (§6.4 steps 1 and 4)', () => {
  const GROUPED = 'Weight fell from 74 kg on 2026-01-10 to 71 kg on 2026-03-02 [3, 2, 3].';

  test('grouped citations are canonicalised in enforce: deduplicated, order kept', () => {
    const r = gate([GROUPED]);
    expect(r.claims).toEqual(['Weight fell from 74 kg on 2026-01-10 to 71 kg on 2026-03-02 [3][2].']);
    expect(r.checks[0].citation_canonicalization).toEqual({ status: 'canonicalized', source_indices: [3, 2] });
    expect([r.status, r.marked]).toEqual(['edited', []]);
  });

  test('grouped citations are untouched in warn, and still read as citations', () => {
    const r = gate([GROUPED], 'warn');
    expect(r.claims).toEqual([GROUPED]);
    expect(r.checks[0].citation_canonicalization).toBeUndefined();
    expect([r.status, r.checks[0].gate.status]).toEqual(['checked', 'pass']);
  });

  test.each([
    ['double brackets', 'Weight was 71 kg on 2026-03-02 [[2,3]].'],
    ['glued into words', 'Weight was 71 kg on 2026-03-02 x[2,3]y.'],
    ['non-numeric member', 'Weight was 71 kg on 2026-03-02 [2, foo].'],
    ['two malformed markers', 'Weight was 71 kg [[2,3]] on 2026-03-02 [2, foo].'],
  ])('malformed groups ⇒ one citation_format mark, claim kept: %s', (_name, claim) => {
    const r = gate([claim]);
    expect(r.claims).toEqual([claim]);
    const format = r.marked.filter((m) => m.check === 'citation_format');
    expect(format).toHaveLength(1);
    expect(format[0]).toMatchObject({ claim_index: 1, level: 'red' });
    expect(format[0].note).toMatch(/^Citation check: .*not (?:a )?valid citation marker/);
    expect(r.checks[0].citation_format?.status).toBe('fail');
    expect(r.status).toBe('needs_review');
  });

  test('a record outside the chart is a red mark', () => {
    const r = gate(['Weight was 71 kg on 2026-03-02 [9].', 'Weight was 71 kg on 2026-03-02 [0][2].']);
    expect(r.marked).toEqual([
      { claim_index: 1, check: 'citation_outside_chart', level: 'red', note: 'Record check: [9] is not a record of this chart (the evidence ledger holds [1]–[7]).' },
      { claim_index: 2, check: 'citation_outside_chart', level: 'red', note: 'Record check: [0] is not a record of this chart (the evidence ledger holds [1]–[7]).' },
    ]);
    expect(r.status).toBe('needs_review');
  });
});

describe('underscore dates (§6.4 Target)', () => {
  test('`2026-01_26` is repaired before checking when the date is in the ledger', () => {
    const r = gate(['Height was 160 cm on 2026-01_26 [6].']);
    expect(r.claims).toEqual(['Height was 160 cm on 2026-01-26 [6].']);
    expect(r.checks[0].date_repair).toEqual({ status: 'repaired', from: '2026-01_26', to: '2026-01-26' });
    expect([r.status, r.checks[0].gate.status, r.marked]).toEqual(['edited', 'pass', []]);
  });

  test('the repaired date is then checked like any other (a wrong value still fails)', () => {
    const r = gate(['Weight was 74 kg on 2026_03_02 [2].']);
    expect(r.claims).toEqual(['Weight was 74 kg on 2026-03-02 [2].']);
    expect(r.marked.map((m) => m.check)).toEqual(['date_value_binding']);
  });

  test.each([
    ['not in the ledger', 'Height was 160 cm on 2026-01_27 [6].', 'enforce'],
    ['not a calendar date', 'Height was 160 cm on 2026-02_30 [6].', 'enforce'],
    ['warn never mutates', 'Height was 160 cm on 2026-01_26 [6].', 'warn'],
  ] as const)('not repaired: %s — kept and marked date_format', (_name, claim, mode) => {
    const r = gate([claim], mode);
    expect(r.claims).toEqual([claim]);
    expect(r.checks[0].date_repair).toBeUndefined();
    expect(r.marked.map((m) => [m.check, m.level])).toEqual([['date_format', 'red']]);
    expect(r.marked[0].note).toMatch(/^Date check: dates must be copied verbatim from the date ledger: `2026-0\d_\d\d` is not an exact ISO date\.$/);
  });

  test('an exposed internal id is not a garbled date: reported, not repaired', () => {
    const r = gate(['Height was 160 cm on D2026_01_26 [6].']);
    expect(r.claims).toEqual(['Height was 160 cm on D2026_01_26 [6].']);
    expect(r.marked.map((m) => m.check)).toEqual(['date_format']);
  });
});
