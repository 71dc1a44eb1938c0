/** Interactions (with the severity floor), duplicate therapy and contraindications (§9.4, §9.6), as tables. */
import { runChecks } from '../../../../server/checks/drug-safety/checks';
import { classContraindications, ruleContraindications } from '../../../../server/checks/drug-safety/contraindications';
import { classInteractions, passesSeverityFloor, ruleInteractions } from '../../../../server/checks/drug-safety/interactions';
import { entriesNamedIn, entryForName } from '../../../../server/checks/drug-safety/matching';
import type { Severity, SourceSeverity } from '../../../../server/checks/drug-safety/types';
import { approvedPackage, entry, exposure, med } from './helpers';

const pkg = approvedPackage();
const ibuprofen = entry(pkg, 'ibuprofen');

describe('matching', () => {
  test.each([
    ['Can I add ibuprofen for his knee?', ['ibuprofen']],
    ['Advil or acetaminophen?', ['ibuprofen', 'paracetamol']],
    ['Is ibuprofenate fine?', []],
    ['What is his weight?', []],
  ])('"%s" names %j (whole words only)', (text, ids) => {
    expect(entriesNamedIn(text, pkg.entries).map((e) => e.id).sort()).toEqual([...ids].sort());
  });

  test('a medication name maps by its longest whole-word alias, or by a bare ATC code', () => {
    expect(entryForName('Warfarin sodium 5 mg tablet', pkg.entries)?.id).toBe('warfarin');
    expect(entryForName('acetylsalicylic acid 81 mg', pkg.entries)?.id).toBe('aspirin');
    expect(entryForName('B01AA03', pkg.entries)?.id).toBe('warfarin');
    expect(entryForName('Nevirapine 200 mg', pkg.entries)).toBeNull();
  });
});

describe('severity floor', () => {
  test.each<[SourceSeverity | null, Severity, boolean]>([
    ['minor', 'minor', true],
    ['moderate', 'minor', true],
    ['major', 'minor', true],
    ['unknown', 'minor', false],
    [null, 'minor', true],
    ['minor', 'moderate', false],
    ['moderate', 'moderate', true],
    ['moderate', 'major', false],
    ['major', 'major', true],
    [null, 'major', true],
  ])('a rule rated %s at floor %s is eligible: %s', (severity, floor, eligible) => {
    expect(passesSeverityFloor(severity, floor)).toBe(eligible);
  });
});

describe('interactions', () => {
  test('interaction with an active order keeps the source severity (pinned §9.4)', () => {
    expect(ruleInteractions(ibuprofen, [med(pkg, 'Warfarin 5 mg', 'warfarin')], 'minor')).toEqual([
      { type: 'interaction', drug: 'Ibuprofen', detail: 'interacts with active order warfarin — increased risk of GI bleeding', severity: 'major' },
    ]);
  });

  test.each<[string, Severity, string[]]>([
    ['minor floor keeps minor rules, omits Unknown', 'minor', ['aspirin', 'lisinopril']],
    ['moderate floor drops minor rules', 'moderate', ['aspirin']],
    ['major floor drops moderate rules', 'major', []],
  ])('%s', (_name, floor, hits) => {
    const meds = [med(pkg, 'Aspirin 81 mg', 'aspirin'), med(pkg, 'Lisinopril 10 mg', 'lisinopril'), med(pkg, 'Methotrexate 10 mg')];
    const found = ruleInteractions(ibuprofen, meds, floor).map((w) => w.detail.split(' ')[4]);
    expect(found).toEqual(hits);
  });

  test('an order matched by exact ATC code interacts even when its name does not carry the token', () => {
    expect(ruleInteractions(ibuprofen, [{ name: 'Coumadin 5 mg', entryId: 'warfarin', atcCodes: ['B01AA03'] }], 'minor')).toHaveLength(1);
  });

  test.each<[string, ReturnType<typeof med>[], string[]]>([
    ['duplicate therapy: same ATC subgroup', [med(pkg, 'Naproxen 250 mg', 'naproxen')], ['same ATC class (M01AE) as active order Naproxen — possible duplicate therapy']],
    ['duplicate therapy across ATC branches via the NSAID group', [med(pkg, 'Aspirin 81 mg', 'aspirin')], ['same cross-reactivity group (NSAID) as active order Aspirin — possible duplicate therapy']],
    ['a bare ATC code not in the dataset is named by its code', [med(pkg, 'M01AE03', null, ['M01AE03'])], ['same ATC class (M01AE) as active order M01AE03 — possible duplicate therapy']],
    ['the same drug is not a duplicate of itself', [med(pkg, 'Ibuprofen 400 mg', 'ibuprofen')], []],
    ['no false positive across unrelated branches', [med(pkg, 'Amoxicillin 500 mg', 'amoxicillin'), med(pkg, 'Warfarin 5 mg', 'warfarin')], []],
  ])('%s', (_name, meds, details) => {
    expect(classInteractions(ibuprofen, meds, pkg.entries, pkg.groups).map((w) => w.detail)).toEqual(details);
  });

  test('without group data, aspirin is not in ibuprofen\'s class', () => {
    expect(classInteractions(ibuprofen, [med(pkg, 'Aspirin 81 mg', 'aspirin')], pkg.entries, [])).toEqual([]);
  });
});

describe('contraindications', () => {
  test.each<[string, { allergies?: string[]; conditions?: string[] }, string[]]>([
    ['allergy rule token found in an allergen (substring)', { allergies: ['nsaids'] }, ['contraindicated by active allergy: NSAID hypersensitivity']],
    ['a rule without a note renders without "null"', { allergies: ['ibuprofen tablets'] }, ['contraindicated by active allergy']],
    ['condition rule', { conditions: ['active peptic ulcer disease'] }, ['contraindicated by active condition: active peptic ulcer disease']],
    ['nothing recorded, nothing flagged', {}, []],
  ])('%s', (_name, patient, details) => {
    expect(ruleContraindications(ibuprofen, { allergies: patient.allergies ?? [], conditions: patient.conditions ?? [] }).map((w) => w.detail)).toEqual(details);
  });

  test.each<[string, string, string[], string[]]>([
    ['named-drug allergy', 'amoxicillin', ['amoxicillin'], ['the patient has a recorded allergy to Amoxicillin']],
    ['same ATC subgroup', 'amoxicillin', ['ampicillin'], ["same ATC class (J01CA) as the patient's allergy to Ampicillin — possible cross-reactivity"]],
    ['shared cross-reactivity group', 'ibuprofen', ['aspirin'], ["same cross-reactivity group (NSAID) as the patient's allergy to Aspirin — possible cross-reactivity"]],
    ['no false positive across ATC branches', 'amoxicillin', ['ibuprofen'], []],
    ['an allergen not in the package says nothing', 'ibuprofen', ['latex'], []],
  ])('class contraindication: %s', (_name, drug, allergies, details) => {
    expect(classContraindications(entry(pkg, drug), allergies, pkg.entries, pkg.groups).map((w) => w.detail)).toEqual(details);
  });
});

describe('runChecks', () => {
  const run = (question: string, answer: string, over = {}) => runChecks({ pkg, exposure: exposure(over), question, answer, minInteractionSeverity: 'minor' });

  test('no false positive without a named drug', () => {
    expect(run('How is his weight?', 'Weight is stable at 70 kg.', { medications: [med(pkg, 'Warfarin', 'warfarin')], allergies: ['ibuprofen'] })).toEqual({ warnings: [], drugsInPlay: [], doseUnchecked: [] });
  });

  test('a drug named only in the question triggers its checks', () => {
    const out = run('Can I add ibuprofen?', 'Consider the bleeding risk first.', { medications: [med(pkg, 'Warfarin 5 mg', 'warfarin')] });
    expect(out.drugsInPlay).toEqual(['ibuprofen']);
    expect(out.warnings.map((w) => w.type)).toEqual(['interaction']);
  });

  test('two aliases of one allergen give one warning', () => {
    const out = run('Can she take amoxicillin?', 'Amoxicillin is an option.', { allergies: ['amoxicillin', 'amoxicillin (amoxil)'] });
    expect(out.warnings.filter((w) => w.detail === 'the patient has a recorded allergy to Amoxicillin')).toHaveLength(1);
  });

  test('drugs named in the Answer are in play too, deduplicated by id', () => {
    expect(run('Pain relief?', 'Ibuprofen (Advil) or paracetamol.').drugsInPlay).toEqual(['ibuprofen', 'paracetamol']);
  });
});
