import { buildTemporalFacts } from '../../../../server/checks/temporal/facts';
import { renderTemporalFacts, temporalFactsSummary } from '../../../../server/checks/temporal/render';

const chart = (...lines: string[]) => lines.join('\n');

const FACTS = buildTemporalFacts(
  chart(
    '[1] (2026-03-02) Encounter: Adult Visit at Clinic A',
    '[2] (2026-03-02) Finding — Weight (kg): 71 kg',
    '[3] (2026-01-10) Finding — Weight (kg): 74 kg',
    '[4] Return visit date: 2026-04-01',
    ...Array.from({ length: 7 }, (_, i) => `[${i + 5}] (2025-0${i + 1}-05) Assessment — Return visit date: 2025-0${i + 1}-20`),
    '[12] (2024-01-01) Program: HIV Care. Enrolled',
  ),
  { referenceDate: '2026-03-10', anchorMode: 'explicit' },
);

function jsonBlock(text: string): unknown {
  const m = /```json\n([\s\S]*)\n```$/.exec(text);
  if (!m) throw new Error('no fenced json block');
  return JSON.parse(m[1]);
}

describe('renderTemporalFacts', () => {
  test('full: an instruction sentence, then compact JSON of the whole facts object', () => {
    const text = renderTemporalFacts(FACTS, 'full');
    const [sentence] = text.split('\n');
    expect(sentence).toMatch(/deterministic/);
    expect(sentence).toMatch(/`iso`/);
    expect(sentence).toMatch(/date_ledger/);
    expect(sentence).toMatch(/verbatim/);
    expect(jsonBlock(text)).toEqual(FACTS);
    // Compact serialisation: no pretty-printing inside the block.
    expect(text.split('\n')).toHaveLength(4);
  });

  test('byte-stable for identical inputs (the prompt prefix is cached)', () => {
    expect(renderTemporalFacts(FACTS, 'full')).toBe(renderTemporalFacts(structuredClone(FACTS), 'full'));
    expect(renderTemporalFacts(FACTS, 'compact')).toBe(renderTemporalFacts(structuredClone(FACTS), 'compact'));
  });

  test('compact: no per-date classes; appointment counts, future, today and the latest 5 past', () => {
    const view = jsonBlock(renderTemporalFacts(FACTS, 'compact')) as Record<string, any>;
    expect(view.date_ledger).toEqual(FACTS.date_ledger);
    expect(view.numeric_series).toEqual(FACTS.numeric_series);
    expect(view.clinical_dates.length).toBe(FACTS.clinical_dates.length);
    for (const d of [...view.clinical_dates, ...view.admin_dates]) expect(Object.keys(d).sort()).toEqual(['date', 'date_id', 'indices', 'record_count']);
    expect(view.admin_dates).toEqual([{ date: '2024-01-01', date_id: 'D2024_01_01', record_count: 1, indices: [12] }]);
    expect(view.last_clinical_encounter).toEqual(FACTS.last_clinical_encounter);
    expect(view.appointment_candidates.counts).toEqual({ past: 7, today: 0, future: 1, unknown: 0, all: 8 });
    expect(view.appointment_candidates.future.map((c: { date: string }) => c.date)).toEqual(['2026-04-01']);
    expect(view.appointment_candidates.today).toEqual([]);
    expect(view.appointment_candidates.latest_past.map((c: { date: string }) => c.date)).toEqual(['2025-03-20', '2025-04-20', '2025-05-20', '2025-06-20', '2025-07-20']);
    expect(view.appointment_candidates).not.toHaveProperty('all');
  });

  test('compact is smaller than full', () => {
    expect(renderTemporalFacts(FACTS, 'compact').length).toBeLessThan(renderTemporalFacts(FACTS, 'full').length);
  });
});

describe('temporalFactsSummary', () => {
  test('only counts, dates and series shapes — no record bodies', () => {
    const summary = temporalFactsSummary(FACTS);
    expect(summary).toEqual({
      anchor_mode: 'explicit',
      reference_date: '2026-03-10',
      date_ledger_count: FACTS.date_ledger.length,
      last_clinical_encounter: '2026-03-02',
      latest_clinical_activity: '2026-03-02',
      appointment_candidates: { past: 7, today: 0, future: 1, unknown: 0, all: 8 },
      numeric_series: [{ concept: 'Weight', n_points: 2, direction: 'down', window: { start: '2026-01-10', start_date_id: 'D2026_01_10', end: '2026-03-02', end_date_id: 'D2026_03_02' } }],
    });
    expect(JSON.stringify(summary)).not.toMatch(/Adult Visit/);
  });

  test('no reference and no encounters', () => {
    const summary = temporalFactsSummary(buildTemporalFacts('', { referenceDate: null, anchorMode: 'latest_record' }));
    expect(summary).toMatchObject({ reference_date: null, date_ledger_count: 0, last_clinical_encounter: null, latest_clinical_activity: null, numeric_series: [] });
  });
});

describe('prompt bounds on large charts', () => {
  const { buildTemporalFacts } = require('../../../../server/checks/temporal/facts') as typeof import('../../../../server/checks/temporal/facts');
  const { promptTemporalView } = require('../../../../server/checks/temporal/render') as typeof import('../../../../server/checks/temporal/render');
  const chartOf = (n: number) =>
    Array.from({ length: n }, (_, i) => `[${i + 1}] (${new Date(Date.UTC(2026, 0, 1) - i * 86400000).toISOString().slice(0, 10)}) Finding — Weight (kg): ${50 + (i % 20)} kg`).join('\n');

  test('a small chart is shown unchanged', () => {
    const facts = buildTemporalFacts(chartOf(5), { referenceDate: '2026-01-10', anchorMode: 'explicit' });
    expect(promptTemporalView(facts)).toEqual({ ...facts });
  });

  test('a 3,000-record chart is trimmed to the newest entries, saying how much it left out', () => {
    const facts = buildTemporalFacts(chartOf(3000), { referenceDate: '2026-01-10', anchorMode: 'explicit' });
    const view = promptTemporalView(facts) as any;
    expect(JSON.stringify(view).length).toBeLessThan(20_000);
    expect(view.clinical_dates).toHaveLength(16);
    expect(view.clinical_dates[0].date).toBe(facts.clinical_dates[0].date); // newest first
    expect(view.numeric_series[0].points).toHaveLength(12);
    expect(view.numeric_series[0].points.at(-1)).toEqual(facts.numeric_series[0].points.at(-1)); // the newest kept
    expect(view.numeric_series[0].n_points).toBe(3000); // summaries describe the whole series
    expect(view.omitted_older_entries.clinical_dates).toBe(facts.clinical_dates.length - 16);
  });
});
