/**
 * A chart whose "unit" or concept name is hundreds of kilobytes (and a model that quotes it back):
 * the gates built a pattern from it that V8 could not compile, threw, and the turn lost its Answer
 * (a leg answered 500). They must run to a result, and still check the other series of the chart.
 */
import { buildTemporalFacts } from '../../../../server/checks/temporal/facts';
import { runTemporalGate } from '../../../../server/checks/temporal/gate';
import { runInDepthGate } from '../../../../server/checks/temporal/indepth-gate';

const HUGE = 200_000;
const unit = 'x'.repeat(HUGE);
const name = `Weight ${'y'.repeat(HUGE)}`;

const CASES: Array<[string, string[], string]> = [
  [
    'a unit of 200,000 characters',
    [`[1] (2026-03-02) Finding — Weight (kg): 71 ${unit}`, `[2] (2026-01-10) Finding — Weight (kg): 74 ${unit}`],
    `Weight was 71 ${unit} on 2026-03-02 [1].`,
  ],
  [
    'a concept name of 200,000 characters',
    [`[1] (2026-03-02) Finding — ${name}: 71 kg`, `[2] (2026-01-10) Finding — ${name}: 74 kg`],
    `${name} was 71 kg on 2026-03-02 [1] and increased.`,
  ],
];

/** Every case's chart also has a height series of ordinary size, misquoted in the answer. */
const HEIGHT = ['[3] (2026-03-02) Finding — Height (cm): 160 cm', '[4] (2026-01-10) Finding — Height (cm): 158 cm'];
const WRONG_HEIGHT = 'Height was 158 cm on 2026-03-02 [3].';

describe.each(CASES)('%s', (_name, lines, quoting) => {
  const facts = buildTemporalFacts([...lines, ...HEIGHT].join('\n'), { referenceDate: '2026-03-10', anchorMode: 'explicit' });

  test('the Answer gate runs to a result and still fails the misquoted ordinary series', () => {
    const r = runTemporalGate({ question: 'What are the latest weight and height?', answer: `${quoting} ${WRONG_HEIGHT}`, citations: [1, 3], facts, mode: 'enforce' });
    expect(r.schema_version).toBe('temporal_gate.v1');
    expect(r.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toContain('date_value_binding');
  });

  test('the In-Depth gate runs to a result for a claim quoting it', () => {
    const r = runInDepthGate({ claims: [quoting, WRONG_HEIGHT], facts, mode: 'enforce', ledgerSize: 4 });
    expect(r.schema_version).toBe('indepth_temporal_gate.v1');
    expect(r.checks).toHaveLength(2);
    expect(r.checks[1].gate.status).toBe('fail');
  });
});
