import { extractChart, parseChart } from '../../../server/context/inline-chart';
import { renderLedger } from '../../../server/context/render';

const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: string) => ({ role: 'assistant', content });

describe('extractChart (decision 20)', () => {
  const cases: Array<[string, ReturnType<typeof user>[], { chartIdx: number[]; question: string; chartStarts?: string }]> = [
    ['marker message then question', [user('Patient records (most recent first):\n[1] (2026-01-01) Medication: lisinopril 10 mg'), user('What meds?')], { chartIdx: [0], question: 'What meds?', chartStarts: '[1] (2026-01-01)' }],
    ['a question starting with [3] is not a chart', [user('[3] what does record three mean?')], { chartIdx: [], question: '[3] what does record three mean?' }],
    ['an earlier message of numbered lines is a chart', [user('[1] (2026-01-01) Medication: x\n[2] Finding — Weight (kg): 70 kg'), user('weight?')], { chartIdx: [0], question: 'weight?' }],
    ['two plain user messages: the first is not assumed to be a chart', [user('Hello there'), assistant('Hi'), user('What is the weight?')], { chartIdx: [], question: 'What is the weight?' }],
    ['an earlier message mostly prose with one numbered line is not a chart', [user('Please note:\nsee item\n[1] of the list\nthanks a lot'), user('q?')], { chartIdx: [], question: 'q?' }],
    ['marker in the last message with Clinician\'s query trailer', [user("Patient records (most recent first):\n[1] (2026-01-01) Medication: x\n\nClinician's query: What meds?")], { chartIdx: [0], question: 'What meds?' }],
    ['the last message is never a record-line chart', [user('[1] (2026-01-01) Medication: x\n[2] Finding: y')], { chartIdx: [], question: '[1] (2026-01-01) Medication: x\n[2] Finding: y' }],
    ['non-string content is stringified', [user({ any: 'thing' })], { chartIdx: [], question: '{"any":"thing"}' }],
  ];
  test.each(cases)('%s', (_name, messages, want) => {
    const got = extractChart(messages);
    expect(got.chartMessageIndices).toEqual(want.chartIdx);
    expect(got.question).toBe(want.question);
    if (want.chartStarts) expect(got.chartText.startsWith(want.chartStarts)).toBe(true);
  });

  test('chart text stops before the Clinician\'s query trailer', () => {
    const got = extractChart([user("Patient records (most recent first):\n[1] (2026-01-01) A\nRecords ranked by similarity to the query: 1.\n\nClinician's query: Q")]);
    expect(got.chartText).toBe('[1] (2026-01-01) A');
  });
});

describe('parseChart', () => {
  test('dates carry forward, preamble kept, continuation lines kept on the preceding record, allergy mandatory', () => {
    const ledger = parseChart(
      ['Patient: 41-year-old Male', '[1] (2026-03-02) Encounter: Visit', '[2] Finding — Weight (kg): 71 kg', 'continued note', '[3] (2025-12-01) Allergy: Penicillin'].join('\n'),
      { maxRecords: 100 },
    );
    expect(ledger.preamble).toBe('Patient: 41-year-old Male\n');
    expect(ledger.records.map((r) => [r.stableId, r.date, r.mandatory])).toEqual([
      ['inline:1', '2026-03-02', false],
      ['inline:2', '2026-03-02', false],
      ['inline:3', '2025-12-01', true],
    ]);
    expect(ledger.records[1].text).toBe('Finding — Weight (kg): 71 kg\ncontinued note');
    expect(ledger.records[0].resourceType).toBe('ChartRecord');
  });

  test('a chart without numbered lines is one record', () => {
    const ledger = parseChart('Just some notes about the patient', { maxRecords: 10 });
    expect(ledger.records).toHaveLength(1);
    expect(ledger.records[0].stableId).toBe('inline:1');
  });

  test('more records than the limit is a clear 400', () => {
    const text = Array.from({ length: 5 }, (_, i) => `[${i + 1}] (2026-01-01) r`).join('\n');
    expect(() => parseChart(text, { maxRecords: 4 })).toThrow(expect.objectContaining({ code: 'invalid_request_error', status: 400 }));
  });

  test('rendering keeps the original text byte for byte', () => {
    const text = '[1] (2026-01-01) A\n[2] B\n';
    expect(renderLedger(parseChart(text, { maxRecords: 10 }))).toBe(text);
  });
});
