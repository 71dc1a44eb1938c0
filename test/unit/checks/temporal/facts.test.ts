import { buildTemporalFacts, dateId, monthsBefore } from '../../../../server/checks/temporal/facts';

const chart = (...lines: string[]) => lines.join('\n');
const facts = (text: string, referenceDate: string | null = '2026-03-10', anchorMode = 'explicit') => buildTemporalFacts(text, { referenceDate, anchorMode });

const EXAMPLE = chart(
  '[1] (2026-03-02) Encounter: Adult Visit at Clinic A',
  '[2] (2026-03-02) Finding — Weight (kg): 71 kg',
  '[3] (2026-01-10) Finding — Weight (kg): 74 kg',
  '[4] Return visit date: 2026-04-01',
);

describe('worked example of §6.2', () => {
  const f = facts(EXAMPLE);

  test('ledger: reference, −6 and −12 months, event and value dates, newest first', () => {
    expect(f.date_ledger.map((e) => e.iso)).toEqual(['2026-04-01', '2026-03-10', '2026-03-02', '2026-01-10', '2025-09-10', '2025-03-10']);
    expect(f.date_ledger[0]).toEqual({
      date_id: 'D2026_04_01',
      iso: '2026-04-01',
      year: 2026,
      month: 4,
      month_name: 'April',
      day: 1,
      relation_to_reference: 'future',
      days_from_reference: 22,
    });
    expect(f.date_ledger.map((e) => [e.relation_to_reference, e.days_from_reference])).toEqual([
      ['future', 22],
      ['today', 0],
      ['past', -8],
      ['past', -59],
      ['past', -181],
      ['past', -365],
    ]);
  });

  test('header keys', () => {
    expect(f.date_output_contract).toEqual({ copy_dates_verbatim_from_date_ledger: true, date_id_format: 'DYYYY_MM_DD', do_not_reformat_dates: true });
    expect([f.anchor_mode, f.reference_date, f.reference_date_id]).toEqual(['explicit', '2026-03-10', 'D2026_03_10']);
  });

  test('weight 74 → 71: down, delta −3', () => {
    expect(f.numeric_series).toEqual([
      {
        concept: 'Weight',
        points: [
          { index: 3, date: '2026-01-10', effective_date_id: 'D2026_01_10', value: 74, unit: 'kg' },
          { index: 2, date: '2026-03-02', effective_date_id: 'D2026_03_02', value: 71, unit: 'kg' },
        ],
        n_points: 2,
        most_recent: { index: 2, date: '2026-03-02', effective_date_id: 'D2026_03_02', value: 71, unit: 'kg' },
        window: { start: '2026-01-10', start_date_id: 'D2026_01_10', end: '2026-03-02', end_date_id: 'D2026_03_02' },
        range: { min: 71, max: 74 },
        trend_supported: true,
        direction: 'down',
        delta: -3,
      },
    ]);
  });

  test('record 4 inherits 2026-01-10 and yields a future candidate 2026-04-01', () => {
    const candidate = {
      index: 4,
      source_date: '2026-01-10',
      date: '2026-04-01',
      date_id: 'D2026_04_01',
      concept: 'Return visit date',
      source_type: 'date_observation',
      status: 'candidate',
      relation_to_reference: 'future',
    };
    expect(f.appointment_candidates).toEqual({ past: [], today: [], future: [candidate], unknown: [], all: [candidate] });
    expect(f.return_visit_dates).toEqual([
      { index: 4, source_date: '2026-01-10', value_date: '2026-04-01', concept: 'Return visit date', cls: 'Return visit date', relation_to_reference: 'future' },
    ]);
  });

  test('last encounter and latest activity summarise the clinical records of the day', () => {
    const day = {
      date: '2026-03-02',
      date_id: 'D2026_03_02',
      record_count: 2,
      indices: [1, 2],
      classes: ['Encounter', 'Finding'],
      summaries: ['Encounter: Adult Visit at Clinic A', 'Finding — Weight (kg): 71 kg'],
    };
    expect(f.last_clinical_encounter).toEqual(day);
    expect(f.latest_clinical_activity).toEqual(day);
    expect(f.clinical_dates).toEqual([
      { date: '2026-03-02', date_id: 'D2026_03_02', record_count: 2, indices: [1, 2], classes: ['Encounter', 'Finding'] },
      { date: '2026-01-10', date_id: 'D2026_01_10', record_count: 2, indices: [3, 4], classes: ['Finding', 'Return visit date'] },
    ]);
    expect(f.admin_dates).toEqual([]);
  });
});

describe('date ledger', () => {
  test.each([
    ['2026-08-31', 6, '2026-02-28'],
    ['2024-08-31', 6, '2024-02-29'],
    ['2026-03-31', 12, '2025-03-31'],
    ['2026-03-10', 6, '2025-09-10'],
    ['2026-01-15', 1, '2025-12-15'],
    ['2024-02-29', 12, '2023-02-28'],
  ])('%s − %d months = %s (day clamped)', (iso, months, expected) => {
    expect(monthsBefore(iso, months)).toBe(expected);
  });

  test('dates are deduplicated; date ids use underscores', () => {
    const f = facts(chart('[1] (2026-03-10) Encounter: Visit', '[2] Finding — Follow-up date: 2026-03-10'), '2026-03-10');
    expect(f.date_ledger.map((e) => e.iso)).toEqual(['2026-03-10', '2025-09-10', '2025-03-10']);
    expect(dateId('2006-03-03')).toBe('D2006_03_03');
  });

  test('no reference: relation unknown, days null, no derived reference dates', () => {
    const f = facts(EXAMPLE, null, 'latest_record');
    expect(f.reference_date).toBeNull();
    expect(f.reference_date_id).toBeNull();
    expect(f.date_ledger.map((e) => e.iso)).toEqual(['2026-04-01', '2026-03-02', '2026-01-10']);
    expect(f.date_ledger.every((e) => e.relation_to_reference === 'unknown' && e.days_from_reference === null)).toBe(true);
    expect(f.appointment_candidates.unknown.map((c) => c.date)).toEqual(['2026-04-01']);
  });

  test('an empty chart still carries the reference dates', () => {
    const f = facts('', '2026-03-10');
    expect(f.date_ledger.map((e) => e.iso)).toEqual(['2026-03-10', '2025-09-10', '2025-03-10']);
    expect(f.numeric_series).toEqual([]);
    expect(f.last_clinical_encounter).toBeNull();
    expect(f.latest_clinical_activity).toBeNull();
  });
});

describe('encounters and activity', () => {
  test('last clinical encounter uses explicit Encounter/Visit records only (any case)', () => {
    const f = facts(
      chart(
        '[1] (2026-03-05) Test — CD4 count: 350 cells/µL',
        '[2] (2026-03-04) Drug order: Nevirapine. Action: NEW',
        '[3] (2026-02-20) VISIT: Facility Visit',
        '[4] Finding — Weight (kg): 70 kg',
        '[5] (2026-01-05) Encounter: Adult Visit',
      ),
    );
    expect(f.last_clinical_encounter).toMatchObject({ date: '2026-02-20', indices: [3, 4], classes: ['VISIT', 'Finding'] });
    expect(f.latest_clinical_activity).toMatchObject({ date: '2026-03-05', indices: [1], summaries: ['Test — CD4 count: 350 cells/µL'] });
  });

  test('an activity-only chart does not fabricate an encounter', () => {
    const f = facts(chart('[1] (2026-03-05) Test — CD4 count: 350 cells/µL', '[2] (2026-02-01) Finding — Weight (kg): 70 kg', '[3] (2026-01-01) Visit type: Outpatient'));
    expect(f.last_clinical_encounter).toBeNull();
    expect(f.latest_clinical_activity?.date).toBe('2026-03-05');
  });

  test('administrative records never count as encounters or activity', () => {
    const f = facts(
      chart(
        '[1] (2026-03-09) Program: HIV Care. Enrolled',
        '[2] (2026-03-08) Encounter: Registration [administrative]',
        '[3] (2026-03-07) Visit: Check-in [unknown]',
        '[4] (2026-01-05) Encounter: Adult Visit',
      ),
    );
    expect(f.last_clinical_encounter?.date).toBe('2026-01-05');
    expect(f.latest_clinical_activity?.date).toBe('2026-01-05');
    expect(f.clinical_dates.map((d) => d.date)).toEqual(['2026-01-05']);
    expect(f.admin_dates).toEqual([
      { date: '2026-03-09', date_id: 'D2026_03_09', record_count: 1, indices: [1], classes: ['Program'] },
      { date: '2026-03-08', date_id: 'D2026_03_08', record_count: 1, indices: [2], classes: ['Encounter'] },
      { date: '2026-03-07', date_id: 'D2026_03_07', record_count: 1, indices: [3], classes: ['Visit'] },
    ]);
    // Administrative dates are still ledger dates: the model may quote them.
    expect(f.date_ledger.map((e) => e.iso)).toContain('2026-03-09');
  });

  test('summaries hold at most 8 bodies; counts and indices cover every record of the day', () => {
    const lines = ['[1] (2026-03-02) Encounter: Visit', ...Array.from({ length: 10 }, (_, i) => `[${i + 2}] Finding — Note ${i}: text`)];
    const f = facts(chart(...lines));
    expect(f.last_clinical_encounter?.record_count).toBe(11);
    expect(f.last_clinical_encounter?.indices).toHaveLength(11);
    expect(f.last_clinical_encounter?.summaries).toHaveLength(8);
    expect(f.clinical_dates[0]).not.toHaveProperty('summaries');
  });
});

describe('numeric series', () => {
  test('weights sorted ascending by date and deduped; BMI and height are their own series', () => {
    const f = facts(
      chart(
        '[1] (2026-03-02) Finding — Weight (kg): 71 kg',
        '[2] Weight (kg): 71.4 kg (part of: Vitals)',
        '[3] Finding — Body mass index: 24.6 kg/m2',
        '[4] Finding — Height (cm): 170 cm',
        '[5] (2025-06-01) Finding — Weight (kg): 72.5 kg',
        '[6] (2026-01-10) Finding — Weight (kg): 74 kg',
        '[7] Finding — Body mass index: 25.6 kg/m2',
        '[8] Drug order — Paracetamol: 500 mg',
      ),
    );
    expect(f.numeric_series.map((s) => s.concept)).toEqual(['Body mass index', 'Height', 'Weight']);
    const weight = f.numeric_series[2];
    expect(weight.points.map((p) => [p.date, p.value, p.unit, p.index])).toEqual([
      ['2025-06-01', 72.5, 'kg', 5],
      ['2026-01-10', 74, 'kg', 6],
      ['2026-03-02', 71, 'kg', 1],
    ]);
    expect(weight).toMatchObject({ n_points: 3, range: { min: 71, max: 74 }, direction: 'down', delta: -1.5 });
    expect(f.numeric_series[0]).toMatchObject({ n_points: 2, direction: 'down', delta: -1 });
    expect(f.numeric_series[1]).toMatchObject({ n_points: 1, trend_supported: false, direction: 'none', delta: null, points: [{ unit: 'cm', value: 170 }] });
  });

  test.each([
    ['up', ['[1] (2026-02-01) Test — CD4 count: 420 cells/µL', '[2] (2026-01-01) Test — CD4 count: 350 cells/µL'], 'up', 70],
    ['flat', ['[1] (2026-02-01) Finding — Weight (kg): 70 kg', '[2] (2026-01-01) Finding — Weight (kg): 70 kg'], 'flat', 0],
    ['float noise rounded', ['[1] (2026-02-01) Finding — Weight (kg): 71.1 kg', '[2] (2026-01-01) Finding — Weight (kg): 70.9 kg'], 'up', 0.2],
  ])('direction %s', (_name, lines, direction, delta) => {
    const [s] = facts(chart(...lines)).numeric_series;
    expect(s).toMatchObject({ trend_supported: true, direction, delta });
  });

  test('a single point: no trend, window of one day', () => {
    const [s] = facts('[1] (2026-01-01) Test — CD4 count: 350 cells/µL').numeric_series;
    expect(s).toMatchObject({
      n_points: 1,
      trend_supported: false,
      direction: 'none',
      delta: null,
      most_recent: { index: 1, value: 350, unit: 'cells/µL' },
      window: { start: '2026-01-01', end: '2026-01-01' },
      range: { min: 350, max: 350 },
    });
  });

  test('run-length dates carry into series points', () => {
    const f = facts(
      chart('[1] (2026-01-26) Drug order: Nevirapine. Action: NEW', '[2] Drug order: Lamivudine', '[3] Weight (kg): 71 kg (part of: Vitals)', '[4] (2025-12-17) Weight (kg): 70 kg (part of: Vitals)'),
    );
    expect(f.numeric_series[0].points.map((p) => [p.date, p.value])).toEqual([
      ['2025-12-17', 70],
      ['2026-01-26', 71],
    ]);
  });
});

describe('appointments and return visits', () => {
  const f = facts(
    chart(
      '[1] (2026-03-10) Assessment — Return visit date: 2026-03-10',
      '[2] (2026-02-01) Assessment — Return visit date: 2026-02-15',
      '[3] Finding — Next appointment: 2026-05-01',
      '[4] Finding — Follow-up date: 2026-04-20',
      '[5] Finding — Follow up visit: 2025-12-01',
      '[6] Finding — Scheduled visit: 2026-06-01',
      '[7] Finding — Date of birth: 1990-01-01',
      '[8] Finding — Weight (kg): 70 kg',
    ),
  );

  test('bucketed by relation, oldest value date first', () => {
    const dates = (list: { date: string }[]) => list.map((c) => c.date);
    expect(dates(f.appointment_candidates.all)).toEqual(['2025-12-01', '2026-02-15', '2026-03-10', '2026-04-20', '2026-05-01', '2026-06-01']);
    expect(dates(f.appointment_candidates.past)).toEqual(['2025-12-01', '2026-02-15']);
    expect(dates(f.appointment_candidates.today)).toEqual(['2026-03-10']);
    expect(dates(f.appointment_candidates.future)).toEqual(['2026-04-20', '2026-05-01', '2026-06-01']);
    expect(f.appointment_candidates.unknown).toEqual([]);
  });

  test('return_visit_dates only hold return-visit concepts, with relation', () => {
    expect(f.return_visit_dates.map((r) => [r.index, r.value_date, r.relation_to_reference])).toEqual([
      [1, '2026-03-10', 'today'],
      [2, '2026-02-15', 'past'],
    ]);
  });

  test('non-appointment date observations stay in the ledger only', () => {
    expect(f.appointment_candidates.all.some((c) => c.date === '1990-01-01')).toBe(false);
    expect(f.date_ledger.map((e) => e.iso)).toContain('1990-01-01');
  });
});
