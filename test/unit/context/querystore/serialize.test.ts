/**
 * The QueryStore serializer (hub-contract §5.4 "Chart serializer", clients.md §3): evidence records,
 * the chart line, whole-number trimming, and the temporal reading of the serialized chart.
 */
import { latestRecordDate } from '../../../../server/checks/temporal/anchor';
import { buildTemporalFacts } from '../../../../server/checks/temporal/facts';
import { parseEvents } from '../../../../server/checks/temporal/parse';
import { parseChart } from '../../../../server/context/inline-chart';
import { renderLedger } from '../../../../server/context/render';
import { renderRecordLine } from '../../../../server/context/render';
import { selectContext } from '../../../../server/context/selector';
import { annotate, annotateLedger, identityKey } from '../../../../server/context/sources/querystore/resolve';
import {
  groupSuffix,
  serializeChart,
  singleLine,
  toEvidenceRecord,
  toEvidenceRecords,
  toLedger,
  trimWholeNumbers,
} from '../../../../server/context/sources/querystore/serialize';
import type { QuerystoreRecord } from '../../../../server/context/sources/querystore/types';
import type { EvidenceRecord } from '../../../../server/context/types';

function qs(over: Partial<QuerystoreRecord> = {}): QuerystoreRecord {
  return {
    resourceType: 'obs',
    resourceUuid: 'u-1',
    date: '2026-01-15',
    clinicalDate: '2026-01-15',
    dateKind: 'clinical_event',
    text: 'Finding — Weight (kg): 70 kg',
    metadata: {},
    lastModified: '2026-01-16T12:00:00Z',
    ...over,
  };
}

describe('trimWholeNumbers', () => {
  test.each<[string, string]>([
    ['988.0', '988'],
    ['Finding — Weight (kg): 41.0 kg', 'Finding — Weight (kg): 41 kg'],
    ['Temperature: 37.0. Pulse 72.0/min', 'Temperature: 37. Pulse 72/min'],
    ['BP 120.0/80.0 mmHg', 'BP 120/80 mmHg'],
    ['Change: -2.0 kg, (+3.0)', 'Change: -2 kg, (+3)'],
    ['Values 1,000.0; 0.0%', 'Values 1,000; 0%'],
    ['[12.0]', '[12]'],
    // Kept: not whole, or part of a code, a version or a range.
    ['Glucose: 5.5 mmol/L', 'Glucose: 5.5 mmol/L'],
    ['Dose 1.05 mg, 1.00 mg, 10.50 mg', 'Dose 1.05 mg, 1.00 mg, 10.50 mg'],
    ['Diagnosis: Type 2 diabetes (E11.0)', 'Diagnosis: Type 2 diabetes (E11.0)'],
    ['Version 1.0.0 and 10.0.0.1', 'Version 1.0.0 and 10.0.0.1'],
    ['Coded CIEL:12.0, ICD-11.0, #3.0, v2.0', 'Coded CIEL:12.0, ICD-11.0, #3.0, v2.0'],
    ['Range 4.0-11.0, 41.0kg, 1.0a, 12.0: x', 'Range 4.0-11.0, 41.0kg, 1.0a, 12.0: x'],
    ['x.1.0 and 1.0.b', 'x.1.0 and 1.0.b'],
    ['No numbers here', 'No numbers here'],
    ['', ''],
  ])('%j ⇒ %j', (input, output) => expect(trimWholeNumbers(input)).toBe(output));

  test('linear on long digit and dot runs', () => {
    const long = `${'1.'.repeat(50_000)}0 ${'9'.repeat(100_000)}.0`;
    expect(trimWholeNumbers(long)).toBe(`${'1.'.repeat(50_000)}0 ${'9'.repeat(100_000)}`);
  });
});

describe('singleLine', () => {
  test.each<[string, string]>([
    ['one line', 'one line'],
    ['  padded  ', 'padded'],
    ['first\nsecond', 'first second'],
    ['first  \r\n\r\n  second', 'first second'],
    ['a\u2028b\u2029c\rd\u0085e', 'a b c d e'],
    ['tab\t\n\tafter', 'tab after'],
    ['trailing\n', 'trailing'],
  ])('%j ⇒ %j', (input, output) => expect(singleLine(input)).toBe(output));
});

describe('groupSuffix', () => {
  test.each<[string, Record<string, unknown>, string]>([
    ['member with a group name', { obs_group_uuid: 'g-1', obs_group_concept_name: 'Vitals' }, ' (part of: Vitals)'],
    ['not a member', { obs_group_concept_name: 'Vitals' }, ''],
    ['null group uuid', { obs_group_uuid: null, obs_group_concept_name: 'Vitals' }, ''],
    ['member without a group name', { obs_group_uuid: 'g-1' }, ''],
    ['blank group name', { obs_group_uuid: 'g-1', obs_group_concept_name: '  ' }, ''],
  ])('%s', (_name, metadata, suffix) => expect(groupSuffix(metadata)).toBe(suffix));
});

describe('toEvidenceRecord', () => {
  test('identity, provenance and dates carried through; raw is the QueryStore record', () => {
    const record = qs({ metadata: { concept_name: 'Weight (kg)', value_numeric: 70 } });
    const evidence = toEvidenceRecord(record);
    expect(evidence).toEqual({
      stableId: 'querystore:obs:u-1',
      source: 'querystore',
      sourcePriority: 50,
      resourceType: 'obs',
      resourceUuid: 'u-1',
      date: '2026-01-15',
      text: 'Finding — Weight (kg): 70 kg',
      mandatory: false,
      clinicalDate: '2026-01-15',
      dateKind: 'clinical_event',
      querystoreRank: null,
      sliceTier: null,
      metadata: { concept_name: 'Weight (kg)', value_numeric: 70 },
      raw: record,
    });
    // Copies: the cached ledger cannot be changed through the evidence.
    expect(evidence.raw).not.toBe(record);
    expect(evidence.metadata).not.toBe(record.metadata);
    (evidence.metadata as Record<string, unknown>).concept_name = 'changed';
    expect(record.metadata.concept_name).toBe('Weight (kg)');
  });

  test('absent optional fields become null', () => {
    const { clinicalDate: _c, dateKind: _k, lastModified: _l, ...bare } = qs();
    const evidence = toEvidenceRecord({ ...bare, date: null });
    expect(evidence).toMatchObject({ date: null, clinicalDate: null, dateKind: null });
  });

  test.each<[string, Partial<QuerystoreRecord>, boolean]>([
    ['allergy type', { resourceType: 'allergy', text: 'Penicillin (rash)' }, true],
    ['AllergyIntolerance type', { resourceType: 'AllergyIntolerance', text: 'Penicillin' }, true],
    ['Allergy: body', { resourceType: 'obs', text: 'Allergy: Penicillin' }, true],
    ['metadata.mandatory_context', { metadata: { mandatory_context: true } }, true],
    ['an ordinary observation', {}, false],
    ['patient record (mandatory only through its slice tier)', { resourceType: 'patient', text: 'Patient: Jane' }, false],
  ])('mandatory: %s ⇒ %s', (_name, over, mandatory) => expect(toEvidenceRecord(qs(over)).mandatory).toBe(mandatory));

  test('one record per QueryStore record, QueryStore order', () => {
    const records = [qs({ resourceUuid: 'c' }), qs({ resourceUuid: 'a' }), qs({ resourceUuid: 'b' })];
    expect(toEvidenceRecords(records).map((r) => r.stableId)).toEqual(['querystore:obs:c', 'querystore:obs:a', 'querystore:obs:b']);
  });
});

describe('chart line and evidence text', () => {
  const group = { obs_group_uuid: 'g-1', obs_group_concept_name: 'Vitals' };
  test.each<[string, Partial<QuerystoreRecord>, string, string]>([
    ['clinical date', {}, '[3] (2026-01-15) Finding — Weight (kg): 70 kg', 'Finding — Weight (kg): 70 kg'],
    ['clinical date differs from the sort date', { date: '2026-02-01', clinicalDate: '2026-01-10', dateKind: 'administrative' }, '[3] (2026-01-10) Finding — Weight (kg): 70 kg', 'Finding — Weight (kg): 70 kg'],
    ['sort date, no dateKind (clinical)', { clinicalDate: undefined, dateKind: undefined }, '[3] (2026-01-15) Finding — Weight (kg): 70 kg', 'Finding — Weight (kg): 70 kg'],
    ['sort date, clinical_event', { clinicalDate: null }, '[3] (2026-01-15) Finding — Weight (kg): 70 kg', 'Finding — Weight (kg): 70 kg'],
    ['administrative sort date', { resourceType: 'patient', clinicalDate: null, dateKind: 'administrative', text: 'Patient: Jane Doe. Female' }, '[3] (2026-01-15) Patient: Jane Doe. Female [administrative]', 'Patient: Jane Doe. Female'],
    ['unknown sort date', { clinicalDate: null, dateKind: 'unknown' }, '[3] (2026-01-15) Finding — Weight (kg): 70 kg [unknown]', 'Finding — Weight (kg): 70 kg'],
    ['no date: no marker', { date: null, clinicalDate: null, dateKind: 'administrative' }, '[3] Finding — Weight (kg): 70 kg', 'Finding — Weight (kg): 70 kg'],
    ['group member', { metadata: group, text: 'Weight (kg): 71.0 kg' }, '[3] (2026-01-15) Weight (kg): 71 kg (part of: Vitals)', 'Weight (kg): 71 kg (part of: Vitals)'],
    ['group member, administrative', { metadata: group, clinicalDate: null, dateKind: 'administrative', text: 'Weight (kg): 71 kg' }, '[3] (2026-01-15) Weight (kg): 71 kg (part of: Vitals) [administrative]', 'Weight (kg): 71 kg (part of: Vitals)'],
    ['group already in the text', { metadata: group, text: 'Weight (kg): 71 kg (part of: Vitals)' }, '[3] (2026-01-15) Weight (kg): 71 kg (part of: Vitals)', 'Weight (kg): 71 kg (part of: Vitals)'],
    ['multi-line text', { clinicalDate: null, dateKind: 'unknown', text: 'Note: first\nsecond\r\n' }, '[3] (2026-01-15) Note: first second [unknown]', 'Note: first second'],
    ['code kept', { text: 'Diagnosis: Diabetes (E11.0), HbA1c 7.0 %' }, '[3] (2026-01-15) Diagnosis: Diabetes (E11.0), HbA1c 7 %', 'Diagnosis: Diabetes (E11.0), HbA1c 7 %'],
  ])('%s', (_name, over, line, text) => {
    const evidence = toEvidenceRecord(qs(over));
    expect(evidence.text).toBe(text);
    expect(renderRecordLine(evidence, 3)).toBe(line);
  });

  test('inline records render exactly as before (no clinicalDate, no dateKind)', () => {
    const chart = 'Patient: 41-year-old Male\n[1] (2026-01-02) Encounter: Visit\n[2] (2026-01-01) Finding — Weight (kg), WT): 41.0 kg\n[3] Note: undated [administrative]\n';
    const ledger = parseChart(chart, { maxRecords: 10 });
    expect(ledger.records.map((r, i) => renderRecordLine(r, i + 1))).toEqual([
      '[1] (2026-01-02) Encounter: Visit',
      '[2] (2026-01-01) Finding — Weight (kg), WT): 41.0 kg',
      '[3] (2026-01-01) Note: undated [administrative]',
    ]);
  });
});

describe('the QueryStore ledger', () => {
  const records: QuerystoreRecord[] = [
    qs({ resourceType: 'patient', resourceUuid: 'p-1', clinicalDate: null, dateKind: 'administrative', text: 'Patient: Jane Doe. Female. Born 1985-03-02', date: '2026-03-01' }),
    qs({ resourceType: 'encounter', resourceUuid: 'e-1', text: 'Encounter: Outpatient visit', date: '2026-02-01', clinicalDate: '2026-02-01' }),
    qs({ resourceUuid: 'o-1', text: 'Weight (kg): 70.0 kg', metadata: { obs_group_uuid: 'g', obs_group_concept_name: 'Vitals' }, date: '2026-02-01', clinicalDate: '2026-02-01' }),
    qs({ resourceType: 'allergy', resourceUuid: 'a-1', text: 'Allergy: Penicillin', date: '2025-12-01', clinicalDate: '2025-12-01' }),
    qs({ resourceType: 'program', resourceUuid: 'g-1', text: 'Program: HIV care', date: null, clinicalDate: null, dateKind: null }),
  ];
  const ledger = toLedger(records);

  test('originalText is the serialized chart, line for line the records', () => {
    expect(ledger.sources).toEqual(['querystore']);
    expect(ledger.preamble).toBe('');
    expect(ledger.originalText).toBe(
      [
        '[1] (2026-03-01) Patient: Jane Doe. Female. Born 1985-03-02 [administrative]',
        '[2] (2026-02-01) Encounter: Outpatient visit',
        '[3] (2026-02-01) Weight (kg): 70 kg (part of: Vitals)',
        '[4] (2025-12-01) Allergy: Penicillin',
        '[5] Program: HIV care',
        '',
      ].join('\n'),
    );
    expect(renderLedger(ledger)).toBe(ledger.originalText);
    expect(serializeChart(ledger.records)).toBe(ledger.originalText);
    expect(serializeChart([], 'Patient: x\n')).toBe('Patient: x\n');
  });

  test('a selected view shows the same lines as the full chart', async () => {
    const words = (t: string) => t.split(/\s+/).filter(Boolean).length;
    const view = await selectContext({
      ledger, question: 'What is the weight?', inputLimit: 10_000,
      measure: async (t) => words(t), recordCosts: async (ts) => ts.map(words),
    });
    expect(view.mode).toBe('selected');
    const full = ledger.originalText.split('\n');
    const shown = view.chartText.split('\n').filter(Boolean);
    expect(shown.length).toBeGreaterThan(1);
    for (const [k, line] of shown.entries()) expect(full[view.recordIndices[k] - 1]).toBe(line);
  });

  test('annotation keeps the chart text and every field (defect §13.1 #1)', () => {
    const key = identityKey('obs', 'o-1');
    const annotated = annotateLedger(ledger, { ranks: new Map([[key, 1]]), tiers: new Map([[key, 'similarity']]) });
    expect(serializeChart(annotated.records)).toBe(ledger.originalText);
    expect(renderLedger(annotated)).toBe(ledger.originalText);
    expect(annotated.records[2]).toEqual({ ...ledger.records[2], querystoreRank: 1, sliceTier: 'similarity' });
    expect(annotated.records[0]).toMatchObject({ clinicalDate: null, dateKind: 'administrative', date: '2026-03-01' });
    expect(ledger.records[2]).toMatchObject({ querystoreRank: null, sliceTier: null });
    // A rebuilt record (spread copy) renders the same line.
    const rebuilt: EvidenceRecord[] = annotate(annotated.records, {}).map((r) => ({ ...r }));
    expect(serializeChart(rebuilt)).toBe(ledger.originalText);
  });

  test('temporal facts read the administrative date as non-clinical', () => {
    const events = parseEvents(ledger.originalText);
    expect(events.map((e) => [e.index, e.date, e.administrative, e.body])).toEqual([
      [1, '2026-03-01', true, 'Patient: Jane Doe. Female. Born 1985-03-02'],
      [2, '2026-02-01', false, 'Encounter: Outpatient visit'],
      [3, '2026-02-01', false, 'Weight (kg): 70 kg (part of: Vitals)'],
      [4, '2025-12-01', false, 'Allergy: Penicillin'],
      // Undated: the temporal parser carries the previous line's date forward (§6.1).
      [5, '2025-12-01', true, 'Program: HIV care'],
    ]);
    expect(latestRecordDate(events, ledger.originalText)).toBe('2026-02-01');
    const facts = buildTemporalFacts(ledger.originalText, { referenceDate: '2026-03-05', anchorMode: 'explicit', events });
    expect(facts.last_clinical_encounter?.date).toBe('2026-02-01');
    expect(facts.clinical_dates.map((d) => d.date)).toEqual(['2026-02-01', '2025-12-01']);
    expect(facts.admin_dates.map((d) => d.date)).toEqual(['2026-03-01', '2025-12-01']);
    // The trimmed `70.0` and the group suffix leave a clean series point.
    expect(facts.numeric_series.map((x) => [x.concept, x.points.map((p) => [p.date, p.value, p.unit])])).toEqual([['Weight', [['2026-02-01', 70, 'kg']]]]);
  });

  test('an administrative encounter is not the last visit and not the anchor', () => {
    const chart = toLedger([
      qs({ resourceType: 'visit', resourceUuid: 'v-2', text: 'Visit: Registration desk', date: '2026-04-01', clinicalDate: null, dateKind: 'administrative' }),
      qs({ resourceType: 'encounter', resourceUuid: 'e-9', text: 'Encounter: Check-in', date: '2026-03-20', clinicalDate: null, dateKind: 'unknown' }),
      qs({ resourceType: 'encounter', resourceUuid: 'e-1', text: 'Encounter: Consultation', date: '2026-03-10', clinicalDate: '2026-03-10' }),
    ]).originalText;
    const events = parseEvents(chart);
    expect(events.map((e) => e.administrative)).toEqual([true, true, false]);
    expect(latestRecordDate(events, chart)).toBe('2026-03-10');
    const facts = buildTemporalFacts(chart, { referenceDate: null, anchorMode: 'latest_record', events });
    expect(facts.last_clinical_encounter?.date).toBe('2026-03-10');
    expect(facts.latest_clinical_activity?.date).toBe('2026-03-10');
  });
});
