import { eventClass, isCalendarDate, parseDateObservations, parseEvents, parseNumericObservations } from '../../../../server/checks/temporal/parse';

const chart = (...lines: string[]) => lines.join('\n');

describe('parseEvents', () => {
  test('own date prefixes, run-length carry-forward, and lines before any date ignored', () => {
    const events = parseEvents(
      chart(
        'Patient records (most recent first):',
        'Patient: 41-year-old Male',
        '[1] Note: before any date',
        '[2] (2026-01-26) Drug order: Nevirapine. Action: NEW. Urgency: ROUTINE',
        '[3] Drug order: Lamivudine. Action: NEW. Urgency: ROUTINE',
        '[4] Weight (kg): 71 kg (part of: Vitals)',
        '[5] (2025-12-17) Weight (kg): 70 kg (part of: Vitals)',
        'a continuation line that is not a record',
        '[6] Height (cm): 170 cm',
        '',
        "Clinician's query: how is the weight?",
      ),
    );
    expect(events.map((e) => [e.index, e.date])).toEqual([
      [2, '2026-01-26'],
      [3, '2026-01-26'],
      [4, '2026-01-26'],
      [5, '2025-12-17'],
      [6, '2025-12-17'],
    ]);
    expect(events[0].body).toBe('Drug order: Nevirapine. Action: NEW. Urgency: ROUTINE');
  });

  test('accepts CRLF line endings and leading whitespace', () => {
    const events = parseEvents('  [1] (2026-01-01) Finding — Weight (kg): 70 kg\r\n[2] Encounter: Visit\r\n');
    expect(events.map((e) => [e.index, e.date, e.body])).toEqual([
      [1, '2026-01-01', 'Finding — Weight (kg): 70 kg'],
      [2, '2026-01-01', 'Encounter: Visit'],
    ]);
  });

  test('hub-appended reference records are not chart events', () => {
    const events = parseEvents(
      chart(
        '[1] (2026-01-05) Encounter: Visit',
        '[2] KnowledgeReference (source: knowledge-base): Paracetamol: 1000 mg every 6 hours',
        '[3] Drug reference — Ibuprofen: 400 mg every 8 hours',
      ),
    );
    expect(events.map((e) => e.index)).toEqual([1]);
  });

  test('an impossible date prefix is not trusted: the line inherits the previous date', () => {
    const events = parseEvents(chart('[1] (2026-01-05) Encounter: Visit', '[2] (2026-02-30) Finding — Weight (kg): 70 kg'));
    expect(events[1]).toMatchObject({ date: '2026-01-05', body: 'Finding — Weight (kg): 70 kg' });
  });

  test.each([
    ['Finding — Weight (kg), WT): 41.0 kg', 'Finding'],
    ['Drug order: Nevirapine. Action: NEW', 'Drug order'],
    ['Encounter: Adult Visit at Clinic A', 'Encounter'],
    ['Weight (kg): 71 kg (part of: Vitals)', 'Weight (kg)'],
    ['Program: HIV Care and Treatment', 'Program'],
    ['Assessment — Return visit date: 2006-05-18', 'Assessment'],
    ['Visit', 'Visit'],
    ['Allergy: Penicillin. Reaction: rash', 'Allergy'],
  ])('cls of %s is %s', (body, cls) => {
    expect(eventClass(body)).toBe(cls);
    expect(parseEvents(`[1] (2026-01-01) ${body}`)[0].cls).toBe(cls);
  });

  test.each([
    ['Program: HIV Care and Treatment. Enrolled', true, 'Program: HIV Care and Treatment. Enrolled'],
    ['Program enrollment: TB program', true, 'Program enrollment: TB program'],
    ['Patient: Jane Doe. Female [administrative]', true, 'Patient: Jane Doe. Female'],
    ['Encounter: Registration [unknown]', true, 'Encounter: Registration'],
    ['Finding — Weight (kg): 70 kg (part of: Vitals) [administrative]', true, 'Finding — Weight (kg): 70 kg (part of: Vitals)'],
    ['Finding — Note: reason [unknown] was recorded', false, 'Finding — Note: reason [unknown] was recorded'],
    ['Finding — Weight (kg): 70 kg', false, 'Finding — Weight (kg): 70 kg'],
    ['Programmed note: reminder', false, 'Programmed note: reminder'],
  ])('%s ⇒ administrative %s, marker stripped', (body, administrative, stripped) => {
    expect(parseEvents(`[1] (2026-01-01) ${body}`)[0]).toMatchObject({ administrative, body: stripped });
  });
});

describe('parseNumericObservations', () => {
  const numeric = (body: string) => parseNumericObservations(parseEvents(`[1] (2026-01-01) ${body}`));

  test.each([
    ['Finding — Weight (kg), WT): 41.0 kg', 'Weight', 41, 'kg'],
    ['Weight (kg): 71 kg (part of: Vitals)', 'Weight', 71, 'kg'],
    ['Weight (kg): 71 kg (part of: Vitals (adult))', 'Weight', 71, 'kg'],
    ['Finding — Body mass index (BMI): 24.5 kg/m2', 'Body mass index', 24.5, 'kg/m2'],
    ['Finding — BMI: 22.1 kg/m²', 'BMI', 22.1, 'kg/m²'],
    ['Finding — Height (cm): 170 cm', 'Height', 170, 'cm'],
    ['Test — CD4 count: 350 cells/µL', 'CD4 count', 350, 'cells/µL'],
    ['Finding — Temperature change: -0.5 °C', 'Temperature change', -0.5, '°C'],
    ['Finding — Oxygen saturation: 98%', 'Oxygen saturation', 98, '%'],
    ['Finding — Pulse: 72/min', 'Pulse', 72, '/min'],
    ['Test — Viral load: 0', 'Viral load', 0, ''],
  ])('%s ⇒ %s %d %s', (body, concept, value, unit) => {
    expect(numeric(body)).toEqual([{ index: 1, date: '2026-01-01', concept, value, unit, cls: expect.any(String) }]);
  });

  test.each([
    ['drug order with a dose', 'Drug order — Paracetamol: 500 mg'],
    ['drug order (class only)', 'Drug order: 2 tablets daily'],
    ['medication', 'Medication: 10 mg lisinopril'],
    ['Yes/No assessment', 'Assessment — Currently on ART: Yes'],
    ['No assessment', 'Assessment — Cough: No'],
    ['coded Yes answer', 'Assessment — Screened for TB: 1 (Yes)'],
    ['date-valued obs', 'Assessment — Return visit date: 2006-05-18'],
    ['date-time obs', 'Finding — Date of last period: 2026-01-03T10:00'],
    ['regimen code', 'Finding — Current regimen: 3TC/AZT/NVP'],
    ['blood pressure ratio', 'Finding — Blood pressure: 120/80 mmHg'],
    ['version-like code', 'Finding — Form version: 1.2.3'],
    ['text value', 'Finding — Diagnosis: Hypertension'],
    ['no concept', 'Note 42 kg'],
  ])('excludes %s', (_name, body) => {
    expect(numeric(body)).toEqual([]);
  });

  test('deduplicated per (concept, date): the first line wins; other dates and concepts stay', () => {
    const obs = parseNumericObservations(
      parseEvents(
        chart(
          '[1] (2026-03-02) Finding — Weight (kg): 71 kg',
          '[2] Weight (kg): 71.5 kg (part of: Vitals)',
          '[3] Finding — BMI: 24 kg/m2',
          '[4] (2026-01-10) Finding — weight (kg): 74 kg',
        ),
      ),
    );
    expect(obs.map((o) => [o.index, o.concept, o.date, o.value])).toEqual([
      [1, 'Weight', '2026-03-02', 71],
      [3, 'BMI', '2026-03-02', 24],
      [4, 'Weight', '2026-01-10', 74],
    ]);
  });
});

describe('parseDateObservations', () => {
  test('inherits the record date as source date (run-length) and keeps the concept after the class', () => {
    const obs = parseDateObservations(
      parseEvents(chart('[1] (2026-01-10) Finding — Weight (kg): 74 kg', '[2] Assessment — Return visit date: 2026-04-01 (part of: Visit)')),
    );
    expect(obs).toEqual([{ index: 2, source_date: '2026-01-10', value_date: '2026-04-01', concept: 'Return visit date', cls: 'Assessment' }]);
  });

  test('every distinct calendar date in the value; impossible dates and dateless values ignored', () => {
    const obs = parseDateObservations(
      parseEvents(
        chart(
          '[1] (2025-09-09) Patient: Jane. Female. Born 1998-05-30. Seen 2025-09-09 and 1998-05-30',
          '[2] Finding — Next appointment: 2026-02-30',
          '[3] Finding — Weight (kg): 70 kg',
          '[4] Encounter 2025-09-09 without a colon',
        ),
      ),
    );
    expect(obs.map((o) => [o.index, o.concept, o.value_date])).toEqual([
      [1, 'Patient', '1998-05-30'],
      [1, 'Patient', '2025-09-09'],
    ]);
  });
});

test.each([
  ['2026-03-10', true],
  ['2024-02-29', true],
  ['2025-02-29', false],
  ['2026-13-01', false],
  ['2026-3-10', false],
  ['2026-03-10T00:00', false],
])('isCalendarDate(%s) = %s', (s, ok) => expect(isCalendarDate(s)).toBe(ok));
