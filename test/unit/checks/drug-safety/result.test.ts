/** The drug_safety.v1 result, its status rule, review-state gating, and the drug-reference text (§9.3, §9.6). */
import path from 'node:path';
import { createDrugSafety, traceSummary } from '../../../../server/checks/drug-safety';
import { drugReferenceText, drugReferences } from '../../../../server/checks/drug-safety/evidence';
import type { ExposureRecord } from '../../../../server/checks/drug-safety/exposure';
import { deriveStatus, legacyKeys, type StatusInput } from '../../../../server/checks/drug-safety/result';
import { APPROVED, GROUPS, approvedPackage, entry, exposure, med } from './helpers';

const ROOT = path.resolve(__dirname, '../../../..');
const BUNDLED = path.join(ROOT, 'data/drug-safety/drug-reference.json');
const settings = { format: 'json' as const, crossReactivityPath: GROUPS, minInteractionSeverity: 'minor' as const, weightConceptUuid: 'W', weightMaxAgeDays: 90 };

function qs(resourceType: string, metadata: Record<string, unknown>): ExposureRecord {
  return { source: 'querystore', resourceType, date: '2026-03-01', text: 'x', raw: { resourceType, metadata, date: '2026-03-01' } };
}

describe('deriveStatus', () => {
  const base: StatusInput = { packageState: 'approved', exposure: 'complete', mappingComplete: true, executionComplete: true, checksComplete: true };
  test.each<[string, Partial<StatusInput>, string]>([
    ['everything complete', {}, 'checked'],
    ['no package', { packageState: 'absent' }, 'unavailable'],
    ['an unreviewed package', { packageState: 'unapproved' }, 'unavailable'],
    ['a failed check', { executionComplete: false }, 'unavailable'],
    ['no patient context', { exposure: 'none' }, 'unavailable'],
    ['an inline chart (partial exposure)', { exposure: 'partial' }, 'limited'],
    ['an unmapped active order', { mappingComplete: false }, 'limited'],
    ['a stated dose that could not be checked', { checksComplete: false }, 'limited'],
  ])('%s ⇒ %s', (_name, over, status) => {
    expect(deriveStatus({ ...base, ...over })).toBe(status);
  });
});

describe('the service', () => {
  const approved = createDrugSafety({ ...settings, datasetPath: APPROVED });
  const proposed = createDrugSafety({ ...settings, datasetPath: BUNDLED });
  const records = [qs('patient', { age_years: 40 }), qs('drug_order', { drug_name: 'Warfarin 5 mg' })];
  const input = { records, preamble: '', question: 'Can I add ibuprofen for his knee pain?', referenceDate: '2026-03-10' };

  test('complete structured exposure with an approved package is checked and still surfaces warnings', () => {
    const result = approved.check(approved.prepare(input), 'Ibuprofen 400 mg every 8 hours could be used.');
    expect(result).toMatchObject({ schema_version: 'drug_safety.v1', status: 'checked', identity_confidence: 'structured', coverage: { mapping_complete: true, exposure_complete: true, execution_complete: true, active_order_count: 1, mapped_active_order_count: 1 } });
    expect(result.warnings).toEqual([{ type: 'interaction', drug: 'Ibuprofen', detail: 'interacts with active order warfarin — increased risk of GI bleeding', severity: 'major' }]);
    expect(legacyKeys(result)).toEqual({ safetyStatus: 'checked', safetyWarnings: result.warnings });
  });

  test('an unmapped active order makes the result limited with the reason', () => {
    const result = approved.check(approved.prepare({ ...input, records: [...records, qs('drug_order', { drug_name: 'Nevirapine 200 mg' })] }), 'No.');
    expect(result.status).toBe('limited');
    expect(result.coverage).toMatchObject({ mapping_complete: false, active_order_count: 2, mapped_active_order_count: 1 });
    expect(result.issues.find((i) => i.id === 'unmapped_active_order')!.reason).toContain('Nevirapine 200 mg');
  });

  test('the bundled proposed package shows no warning and names itself as unreviewed', () => {
    const result = proposed.check(proposed.prepare(input), 'Ibuprofen 400 mg every 8 hours could be used.');
    expect(result.status).toBe('unavailable');
    expect(result.warnings).toEqual([]);
    expect(result.package).toMatchObject({ id: 'med-agent-hub-fda-label-seed', review_state: 'proposed' });
    const issue = result.issues.find((i) => i.id === 'package_not_approved')!;
    expect(issue.reason).toContain("'med-agent-hub-fda-label-seed'");
    expect(issue.reason).toContain('proposed');
    expect(proposed.prepare(input).references).toEqual([]);
    expect(legacyKeys(result)).toEqual({ safetyStatus: 'unavailable' });
  });

  test('a check that raises becomes an unavailable result, never a throw', () => {
    const prepared = approved.prepare(input);
    const broken = { ...prepared, exposure: { ...prepared.exposure!, medications: null as never } };
    const result = approved.check(broken, 'Ibuprofen.');
    expect(result.status).toBe('unavailable');
    expect(result.coverage.execution_complete).toBe(false);
    expect(result.issues.map((i) => i.id)).toContain('check_failed');
  });

  test('the trace summary carries package identity, coverage and findings, no patient text', () => {
    const result = approved.check(approved.prepare({ ...input, records: [...records, qs('drug_order', { drug_name: 'Secret-Med 9 mg' })] }), 'Ibuprofen 400 mg.');
    const summary = JSON.stringify(traceSummary(result));
    expect(summary).toContain('"test-approved-package"');
    expect(summary).toContain('"clinically_approved"');
    expect(summary).toContain('"interaction"');
    expect(summary).not.toContain('Secret-Med');
    expect(summary).not.toContain('Warfarin 5 mg');
    expect(summary).not.toContain('knee');
  });
});

describe('drug references', () => {
  const pkg = approvedPackage();
  const ibuprofen = entry(pkg, 'ibuprofen');

  test('dosing is rendered for the matching band and omitted when the age is unknown', () => {
    expect(drugReferenceText(ibuprofen, 5)).toBe(
      'Drug reference — Ibuprofen (NSAID; ATC M01AE01). Dosing for ages 2-11: 5-10 mg/kg per dose, maximum 1200 mg/day. Contraindicated with: allergy nsaid (NSAID hypersensitivity); allergy ibuprofen; condition gi bleed (active gastrointestinal bleeding); condition peptic ulcer (active peptic ulcer disease). Interactions: warfarin (increased risk of GI bleeding); aspirin (additive GI toxicity); lisinopril (reduced antihypertensive effect); methotrexate (rated unknown by its source). Warnings: Take with food. Source: Test fixture.',
    );
    expect(drugReferenceText(ibuprofen, null)).not.toContain('Dosing');
    expect(drugReferenceText(ibuprofen, 1)).toContain('Dosing for ages 0-1: 5-10 mg/kg per dose (no pediatric daily maximum published for this age — consult a dosing reference).');
    expect(drugReferenceText(entry(pkg, 'naproxen'), 40)).toBe('Drug reference — Naproxen (NSAID; ATC M01AE02).');
  });

  test.each<[string, string, ReturnType<typeof med>[], string[]]>([
    ['a question naming no drug injects nothing', 'How is her weight?', [med(pkg, 'Naproxen', 'naproxen')], []],
    ['the question drug is injected', 'Can I add ibuprofen?', [], ['ibuprofen']],
    ['unrelated active orders are not injected', 'Can I add ibuprofen?', [med(pkg, 'Warfarin', 'warfarin'), med(pkg, 'Amoxicillin', 'amoxicillin')], ['ibuprofen']],
    ['related orders (subgroup or group) are injected after the question drug', 'Can I add ibuprofen?', [med(pkg, 'Aspirin', 'aspirin'), med(pkg, 'Naproxen', 'naproxen')], ['ibuprofen', 'aspirin', 'naproxen']],
  ])('%s', (_name, question, meds, ids) => {
    const refs = drugReferences(question, exposure({ medications: meds }), pkg);
    expect(refs.map((r) => r.entryId)).toEqual(ids);
    expect(refs.map((r) => r.named)).toEqual(ids.map((_, i) => i === 0));
    for (const r of refs) expect(r.text).not.toMatch(/null|undefined/);
  });
});

describe('optional inputs', () => {
  test('unreadable cross-reactivity groups degrade to no group warning, with an issue saying why', () => {
    const service = createDrugSafety({ ...settings, datasetPath: APPROVED, crossReactivityPath: path.join(ROOT, 'no-such-groups.json') });
    const records = [qs('patient', { age_years: 40 }), qs('drug_order', { drug_name: 'Aspirin 81 mg' })];
    const result = service.check(service.prepare({ records, preamble: '', question: 'Can I add ibuprofen?', referenceDate: '2026-03-10' }), 'Ibuprofen 200 mg.');
    expect(result.status).toBe('checked');
    expect(result.warnings.map((w) => w.detail)).toEqual(['interacts with active order aspirin — additive GI toxicity']);
    expect(result.issues.map((i) => i.id)).toEqual(['cross_reactivity_unreadable']);
    expect(result.package!.cross_reactivity.loaded).toBe(false);
  });
});
