/** Patient exposure from raw QueryStore records and from inline chart lines (§9.2, defect §13.1 #5). */
import { buildExposure, type ExposureRecord } from '../../../../server/checks/drug-safety/exposure';
import { approvedPackage } from './helpers';

const pkg = approvedPackage();
const WEIGHT = '5089AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const REF = '2026-03-10';

function qs(resourceType: string, metadata: Record<string, unknown>, date = '2026-03-01'): ExposureRecord {
  return { source: 'querystore', resourceType, date, text: 'x', raw: { resourceType, resourceUuid: `${resourceType}-${JSON.stringify(metadata)}`, date, text: 'x', metadata } };
}

function inline(text: string, date: string | null = '2026-03-01'): ExposureRecord {
  return { source: 'inline', resourceType: 'ChartRecord', date, text, raw: {} };
}

const build = (records: ExposureRecord[], over: { preamble?: string; weight?: string | null; maxAge?: number } = {}) =>
  buildExposure({ records, preamble: over.preamble ?? '', referenceDate: REF, entries: pkg.entries, weightConceptUuid: over.weight === undefined ? WEIGHT : over.weight, weightMaxAgeDays: over.maxAge ?? 90 });

describe('structured exposure (QueryStore raw records)', () => {
  test('active orders: stopped and expired orders are not active; names map to package entries', () => {
    const e = build([
      qs('drug_order', { drug_name: 'Warfarin 5 mg tablet' }),
      qs('drug_order', { concept_name: 'Naproxen', auto_expire_date: '2026-03-10' }),
      qs('drug_order', { drug_name: 'Aspirin', date_stopped: '2026-02-01' }),
      qs('drug_order', { drug_name: 'Lisinopril', auto_expire_date: '2026-03-09' }),
      qs('drug_order', { drug_name: 'Nevirapine 200 mg' }),
    ]);
    expect(e).toMatchObject({ origin: 'structured', complete: true });
    expect(e.medications.map((m) => [m.name, m.entryId])).toEqual([['Warfarin 5 mg tablet', 'warfarin'], ['Naproxen', 'naproxen'], ['Nevirapine 200 mg', null]]);
  });

  test('allergies, conditions and age', () => {
    const e = build([
      qs('patient', { age_years: 5 }),
      qs('allergy', { allergen_name: 'Penicillin', allergen_non_coded: 'Amoxil rash' }),
      qs('condition', { concept_name: 'Peptic ulcer' }),
      qs('condition', { concept_name: 'Asthma', clinical_status: 'inactive' }),
    ]);
    expect(e).toMatchObject({ ageYears: 5, allergies: ['penicillin', 'amoxil rash'], conditions: ['peptic ulcer'] });
  });

  test('age falls back to the birth date against the reference date', () => {
    expect(build([qs('patient', { birthdate: '2020-03-11' })]).ageYears).toBe(5);
  });

  test.each<[string, ExposureRecord[], { weight?: string | null; maxAge?: number }, number | null]>([
    ['the newest fresh kg weight is used', [qs('obs', { concept_uuid: WEIGHT, value_numeric: 50, units: 'kg' }, '2026-03-01'), qs('obs', { concept_uuid: WEIGHT, value_numeric: 48, units: 'kg' }, '2026-02-01')], {}, 50],
    ['a non-kg weight is ignored', [qs('obs', { concept_uuid: WEIGHT, value_numeric: 110, units: 'lb' })], {}, null],
    ['a stale weight is ignored', [qs('obs', { concept_uuid: WEIGHT, value_numeric: 50, units: 'kg' }, '2025-10-01')], {}, null],
    ['a weight after the reference date is ignored', [qs('obs', { concept_uuid: WEIGHT, value_numeric: 50, units: 'kg' }, '2026-04-01')], {}, null],
    ['another concept is ignored', [qs('obs', { concept_uuid: 'other', value_numeric: 50, units: 'kg' })], {}, null],
    ['the `none` sentinel turns the weight arm off', [qs('obs', { concept_uuid: WEIGHT, value_numeric: 50, units: 'kg' })], { weight: null }, null],
    ['a shorter max age drops an older weight', [qs('obs', { concept_uuid: WEIGHT, value_numeric: 50, units: 'Kilograms' }, '2026-02-01')], { maxAge: 30 }, null],
  ])('%s', (_name, records, over, kg) => {
    expect(build(records, over).weightKg).toBe(kg);
  });
});

describe('inline chart exposure', () => {
  test('classifiable lines are read, but the exposure is never complete', () => {
    const e = build([
      inline('Medication: Warfarin 5 mg'),
      inline('Drug order — Aspirin: 81 mg'),
      inline('Drug order: Nevirapine. Action: NEW. Urgency: ROUTINE'),
      inline('Drug order: Naproxen. Action: DISCONTINUE'),
      inline('Allergy: Penicillin. Reaction: rash'),
      inline('Condition: Peptic ulcer, status: active'),
      inline('Condition: Asthma. status: resolved'),
      inline('Finding — Weight (kg), WT): 41.0 kg'),
      inline('Encounter: Adult Visit'),
    ], { preamble: 'Patient: 41-year-old Male\n' });
    expect(e).toMatchObject({ origin: 'inline_chart', complete: false, ageYears: 41, weightKg: 41, allergies: ['penicillin'], conditions: ['peptic ulcer, status: active'] });
    expect(e.medications.map((m) => [m.name, m.entryId])).toEqual([['Warfarin 5 mg', 'warfarin'], ['Aspirin: 81 mg', 'aspirin'], ['Nevirapine', null]]);
  });

  test('a chart mixing structured and inline records is incomplete; no records means no exposure', () => {
    expect(build([qs('drug_order', { drug_name: 'Warfarin' }), inline('Medication: Aspirin')])).toMatchObject({ origin: 'inline_chart', complete: false });
    expect(build([])).toMatchObject({ origin: 'none', complete: false, medications: [] });
  });

  test('injected drug references are never read as the patient\'s records', () => {
    expect(build([{ source: 'drug-safety', resourceType: 'drug_reference', date: null, text: 'Drug reference — Warfarin', raw: {} }]).origin).toBe('none');
  });
});
