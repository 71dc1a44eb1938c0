/**
 * Drug safety end to end (issue 14; hub-contract §9, §12 *Drug safety*): QueryStore patients (structured
 * exposure) and inline charts through a real hub, a fake QueryStore and a fake router. With the approved
 * fixture package the pinned §9.4 examples give exactly their warnings; with the bundled `proposed`
 * package the same requests give none and say why. Every product envelope carries `drug_safety.v1`
 * under `safetyCheck` and `drug_safety`, plus `safetyStatus` (and `safetyWarnings` when any).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunningHub } from '../../server/main';
import { parseChartSearchStream } from '../support/chartsearch-sse';
import { qsRecord, uuidFrom } from '../support/fake-querystore';
import { useQuerystoreHub, type QuerystoreHub } from '../support/querystore-hub';
import { postJson, ROOT, traceLines } from '../support/hub';

const WEIGHT_CONCEPT = '5089AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const APPROVED_ENV = { DRUG_SAFETY_DATASET_PATH: 'test/fixtures/drug-safety/approved-package.json', DRUG_SAFETY_CROSS_REACTIVITY_PATH: 'test/fixtures/drug-safety/cross-reactivity.json' };
const FAST = 'single-12b-fast';
const uuid = (n: number) => uuidFrom('drug-safety', n);

const patientRecord = (age: number) => qsRecord({ uuid: uuid(100 + age), resourceType: 'patient', date: '2025-09-09', clinicalDate: null, dateKind: 'administrative', text: `Patient: Test Patient. ${age} years old.`, metadata: { age_years: age } });
const weightRecord = (kg: number) => qsRecord({ uuid: uuid(200 + kg), date: '2026-03-01', text: `Weight (kg): ${kg} kg`, metadata: { concept_name: 'Weight (kg)', concept_uuid: WEIGHT_CONCEPT, value_numeric: kg, units: 'kg' } });
const orderRecord = (n: number, name: string) => qsRecord({ uuid: uuid(300 + n), resourceType: 'drug_order', date: '2026-02-01', text: `Drug order: ${name}. Action: NEW`, metadata: { drug_name: name, action: 'NEW' } });

/** Patients of the fake QueryStore (newest first, as QueryStore sends a chart). */
const PATIENTS: Record<string, Array<Record<string, unknown>>> = {
  'on-warfarin': [orderRecord(1, 'Warfarin 5 mg tablet'), patientRecord(40)],
  'adult-50kg': [weightRecord(50), patientRecord(40)],
  'child-5y': [patientRecord(5)],
  'unmapped-order': [orderRecord(2, 'Warfarin 5 mg tablet'), orderRecord(3, 'Nevirapine 200 mg'), patientRecord(40)],
  'on-naproxen': [orderRecord(4, 'Naproxen 250 mg'), patientRecord(40)],
  'penicillin-allergy': [qsRecord({ uuid: uuid(400), resourceType: 'allergy', date: '2025-12-01', text: 'Allergy: Penicillin. Reaction: rash', metadata: { allergen_name: 'Penicillin' } }), patientRecord(30)],
};

function useDrugSafetyHub(env: Record<string, string>): QuerystoreHub {
  return useQuerystoreHub({ env, seed: (qs) => Object.entries(PATIENTS).forEach(([id, records]) => qs.setChart(id, records)) });
}

function answer(text: string, citations: number[] = []): string {
  return JSON.stringify({ answer: text, citations, blocks: [] });
}

async function blocking(hub: RunningHub, body: Record<string, unknown>): Promise<{ status: number; envelope: Record<string, any>; json: any }> {
  const res = await postJson(`${hub.url}/v1/chat/completions`, { ...body, stream: false });
  const json = (await res.json()) as any;
  return { status: res.status, json, envelope: res.status === 200 ? JSON.parse(json.choices[0].message.content) : {} };
}

async function streamed(hub: RunningHub, body: Record<string, unknown>) {
  const res = await postJson(`${hub.url}/v1/chat/completions`, { ...body, stream: true });
  return parseChartSearchStream(await res.text());
}

const ask = (patient: string, question: string, model = FAST) => ({ model, patient, messages: [{ role: 'user', content: question }] });

/** The pinned §9.4 requests: question, patient, and the Answer the writer gives. */
const PINNED = {
  interaction: { patient: 'on-warfarin', question: 'Can I add ibuprofen for his knee pain?', answer: 'Ibuprofen would add bleeding risk on top of warfarin [1]; consider paracetamol instead.' },
  perDose: { patient: 'adult-50kg', question: 'What ibuprofen dose can she take?', answer: 'Ibuprofen 600 mg every 8 hours.' },
  daily: { patient: 'child-5y', question: 'How much ibuprofen for the fever?', answer: 'Ibuprofen 600 mg every 6 hours.' },
};

function expectSafetyKeys(envelope: Record<string, any>): void {
  expect(envelope.safetyCheck).toEqual(envelope.drug_safety);
  expect(envelope.safetyCheck.schema_version).toBe('drug_safety.v1');
  expect(envelope.safetyStatus).toBe(envelope.safetyCheck.status);
  if (envelope.safetyCheck.warnings.length) expect(envelope.safetyWarnings).toEqual(envelope.safetyCheck.warnings);
  else expect(envelope).not.toHaveProperty('safetyWarnings');
}

describe('drug safety with an approved package', () => {
  const ctx = useDrugSafetyHub(APPROVED_ENV);

  test('interaction with an active order (pinned §9.4): checked, with the drug reference in the ledger and cited', async () => {
    const { patient, question } = PINNED.interaction;
    // [2] is the patient record, [3] the injected drug reference for ibuprofen (after the patient records).
    ctx.router.script({ content: answer('Ibuprofen would add bleeding risk on top of warfarin [1][3].', [1, 3]) });
    const { status, envelope } = await blocking(ctx.hub, ask(patient, question));
    expect(status).toBe(200);
    expectSafetyKeys(envelope);
    expect(envelope.safetyStatus).toBe('checked');
    expect(envelope.safetyWarnings).toEqual([{ type: 'interaction', drug: 'Ibuprofen', detail: 'interacts with active order warfarin — increased risk of GI bleeding', severity: 'major' }]);
    expect(envelope.safetyCheck).toMatchObject({
      package: { id: 'test-approved-package', version: '1.0.0', review_state: 'clinically_approved', source_format: 'json' },
      coverage: { mapping_complete: true, exposure_complete: true, execution_complete: true, active_order_count: 1, mapped_active_order_count: 1 },
      identity_confidence: 'structured',
    });
    const ref = envelope.references.find((r: any) => r.index === 3);
    expect(ref).toMatchObject({ source: 'drug-safety', resourceType: 'drug_reference', resourceUuid: 'ibuprofen', sourceId: 'drug-reference:3', resolutionStatus: 'resolved', date: null });
    expect(ref.sourceText).toMatch(/^Drug reference — Ibuprofen \(NSAID; ATC M01AE01\)\. Dosing for ages 12-120: 5-10 mg\/kg per dose, maximum 2400 mg\/day\./);
    expect(ref.provenance).toMatchObject({ authority: 'Med Agent Hub test fixture (not clinical data)', license: 'CC0-1.0' });
    // The reference renders after the patient records, as a numbered line of the one context message.
    const prompt = String(ctx.router.chatRequests()[0].body.messages[0].content);
    const chart = prompt.slice(prompt.indexOf('Patient records (most recent first):'));
    expect(chart.indexOf('[2] (2025-09-09) Patient: Test Patient.')).toBeLessThan(chart.indexOf('[3] Drug reference — Ibuprofen'));
    expect(envelope.context.included).toEqual(expect.arrayContaining([{ source_id: 'drug-reference:3', reason: expect.any(String) }]));
  });

  test('per-dose overdose for 600 mg every 8 h at 50 kg (pinned §9.4): exactly one warning', async () => {
    const { patient, question, answer: text } = PINNED.perDose;
    ctx.router.script({ content: answer(text) });
    const { envelope } = await blocking(ctx.hub, ask(patient, question));
    expectSafetyKeys(envelope);
    expect(envelope.safetyStatus).toBe('checked');
    expect(envelope.safetyWarnings).toEqual([{ type: 'overdose', drug: 'Ibuprofen', detail: "stated dose 600 mg exceeds the 10 mg/kg per-dose maximum for the patient's 50 kg weight", severity: null }]);
  });

  test('daily overdose for a 5-year-old (pinned §9.4): answer_done and done carry identical warnings', async () => {
    const { patient, question, answer: text } = PINNED.daily;
    ctx.router.script({ match: { contains: 'DIRECT ANSWER' }, content: JSON.stringify({ claims: [] }) }, { content: answer(text) });
    const parsed = await streamed(ctx.hub, ask(patient, question, 'single-12b-bare'));
    expect(parsed.error).toBeNull();
    const answerDone = parsed.events.find((e) => e.name === 'answer_done')!.data as Record<string, any>;
    const done = parsed.events.at(-1)!.data as Record<string, any>;
    expect(parsed.events.at(-1)!.name).toBe('done');
    for (const e of parsed.events) expectSafetyKeys(e.data as Record<string, any>);
    expect(done.safetyWarnings).toEqual([{ type: 'overdose', drug: 'Ibuprofen', detail: 'stated dose ~2400 mg/day exceeds the 1200 mg/day maximum for ages 2-11', severity: null }]);
    expect(answerDone.safetyWarnings).toEqual(done.safetyWarnings);
    expect(answerDone.safetyCheck).toEqual(done.safetyCheck);
  });

  test('an unmapped active order makes the result limited, with the reason, and still shows the warnings it found', async () => {
    ctx.router.script({ content: answer('Ibuprofen is not advised with warfarin [1].', [1]) });
    const { envelope } = await blocking(ctx.hub, ask('unmapped-order', PINNED.interaction.question));
    expectSafetyKeys(envelope);
    expect(envelope.safetyStatus).toBe('limited');
    expect(envelope.safetyCheck.coverage).toMatchObject({ mapping_complete: false, active_order_count: 2, mapped_active_order_count: 1 });
    expect(envelope.safetyCheck.issues.find((i: any) => i.id === 'unmapped_active_order').reason).toContain('Nevirapine 200 mg');
    expect(envelope.safetyWarnings.map((w: any) => w.type)).toEqual(['interaction']);
  });

  test('an inline chart is limited at best, never checked (defect §13.1 #5)', async () => {
    ctx.router.script({ content: answer('Ibuprofen adds bleeding risk with warfarin [2].', [2]) });
    const chart = 'Patient records (most recent first):\nPatient: 41-year-old Male\n[1] (2026-03-01) Finding — Weight (kg): 70 kg\n[2] (2026-02-01) Medication: Warfarin 5 mg\n[3] (2025-12-01) Allergy: Latex. Reaction: rash';
    const { envelope } = await blocking(ctx.hub, { model: FAST, messages: [{ role: 'user', content: chart }, { role: 'user', content: 'Can I add ibuprofen?' }] });
    expectSafetyKeys(envelope);
    expect(envelope.safetyStatus).toBe('limited');
    expect(envelope.safetyCheck).toMatchObject({ identity_confidence: 'inline_text', coverage: { exposure_complete: false, mapping_complete: true, execution_complete: true } });
    expect(envelope.safetyCheck.issues.map((i: any) => i.id)).toContain('exposure_incomplete');
    expect(envelope.safetyWarnings).toEqual([{ type: 'interaction', drug: 'Ibuprofen', detail: 'interacts with active order warfarin — increased risk of GI bleeding', severity: 'major' }]);
    // The chart keeps its bytes; the reference is one more numbered line after it.
    const prompt = String(ctx.router.chatRequests()[0].body.messages[0].content);
    expect(prompt).toContain(`${chart.split('\n').slice(1).join('\n')}\n[4] Drug reference — Ibuprofen`);
  });

  test('an allergy contraindication from a structured allergy record', async () => {
    ctx.router.script({ content: answer('Amoxicillin 500 mg every 8 hours is usual [1].', [1]) });
    const { envelope } = await blocking(ctx.hub, ask('penicillin-allergy', 'Can she take amoxicillin?'));
    expect(envelope.safetyStatus).toBe('limited'); // a stated dose of an entry without dosing bands cannot be checked
    expect(envelope.safetyCheck.issues.map((i: any) => i.id)).toContain('dose_unchecked');
    expect(envelope.safetyWarnings).toEqual([{ type: 'contraindication', drug: 'Amoxicillin', detail: 'contraindicated by active allergy: penicillin hypersensitivity', severity: null }]);
  });

  test('a question naming no drug injects nothing and warns about nothing', async () => {
    ctx.router.script({ content: answer('She is 40 years old [2].', [2]) });
    const { envelope } = await blocking(ctx.hub, ask('on-warfarin', 'How old is she?'));
    expect(envelope.safetyStatus).toBe('checked');
    expect(envelope).not.toHaveProperty('safetyWarnings');
    expect(JSON.stringify(ctx.router.chatRequests()[0].body.messages)).not.toContain('Drug reference');
  });

  test('a request without any patient context is unavailable, not checked', async () => {
    ctx.router.script({ content: answer('Ibuprofen is an NSAID.') });
    const { envelope } = await blocking(ctx.hub, { model: FAST, messages: [{ role: 'user', content: 'Can I add ibuprofen?' }] });
    expectSafetyKeys(envelope);
    expect(envelope.safetyStatus).toBe('unavailable');
    expect(envelope.safetyCheck.issues.map((i: any) => i.id)).toContain('no_patient_context');
  });

  test('a failure before any Answer: the fallback carries the safety keys, unavailable because nothing was checked', async () => {
    ctx.router.script({ status: 500, errorBody: { error: { code: 500, message: 'boom', type: 'server_error' } } });
    const parsed = await streamed(ctx.hub, ask('on-warfarin', PINNED.interaction.question));
    const done = parsed.events.at(-1)!;
    expect(done.name).toBe('done');
    expectSafetyKeys(done.data as Record<string, any>);
    expect((done.data as any).safetyStatus).toBe('unavailable');
    expect((done.data as any).safetyCheck.issues.map((i: any) => i.id)).toContain('checks_not_run');
  });

  test('a question drug whose reference cannot fit fails with insufficient_context naming it', async () => {
    const allergies = ['Patient records (most recent first):', ...Array.from({ length: 2500 }, (_, i) => `[${i + 1}] (2025-01-01) Allergy: substance number ${i} with a long reaction description that takes tokens`)].join('\n');
    const res = await postJson(`${ctx.hub.url}/v1/chat/completions`, { model: FAST, messages: [{ role: 'user', content: allergies }, { role: 'user', content: 'Can I add ibuprofen?' }] });
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.detail.code).toBe('insufficient_context');
    expect(body.detail.drug_references).toEqual(['Ibuprofen']);
    expect(body.detail.message).toContain('Ibuprofen');
    expect(body.detail.mandatory_ids).toContain('drug-reference:2501');
    expect(ctx.router.chatRequests()).toHaveLength(0);
  });

  test('the trace records package, coverage and findings; logs and the safety trace carry no patient text', async () => {
    ctx.router.script({ content: answer('Ibuprofen would add bleeding risk on top of warfarin [1].', [1]) });
    await blocking(ctx.hub, { ...ask('on-warfarin', PINNED.interaction.question), context: { request_id: 'ds-trace' } });
    const line = (await traceLines(ctx.hub, ctx.traceDir)).filter((l) => l.correlation?.request_id === 'ds-trace').pop()!;
    const step = line.steps.find((s: any) => s.role === 'drug_safety');
    expect(step).toMatchObject({ status: 'checked', package: { id: 'test-approved-package', version: '1.0.0', review_state: 'clinically_approved' }, coverage: { active_order_count: 1 }, findings: [{ type: 'interaction', drug: 'Ibuprofen', severity: 'major' }] });
    const safetySteps = JSON.stringify(line.steps.filter((s: any) => String(s.role).startsWith('drug_safety')));
    expect(safetySteps).not.toContain('Warfarin 5 mg tablet');
    expect(safetySteps).not.toContain('knee');
    const logs = ctx.logs.join('');
    expect(logs).not.toContain('Warfarin 5 mg tablet');
    expect(logs).not.toContain('knee pain');
  });
});

describe('drug safety with the bundled proposed package', () => {
  const ctx = useDrugSafetyHub({});

  test.each(Object.entries(PINNED))('the pinned %s request gives no warning, names the unreviewed package and adds no reference', async (_name, pinned) => {
    ctx.router.script({ content: answer(pinned.answer) });
    const { envelope } = await blocking(ctx.hub, ask(pinned.patient, pinned.question));
    expectSafetyKeys(envelope);
    expect(envelope).not.toHaveProperty('safetyWarnings');
    expect(envelope.safetyCheck.warnings).toEqual([]);
    expect(envelope.safetyCheck.package).toMatchObject({ id: 'med-agent-hub-fda-label-seed', review_state: 'proposed' });
    expect(envelope.safetyStatus).toBe('unavailable');
    const issue = envelope.safetyCheck.issues.find((i: any) => i.id === 'package_not_approved');
    expect(issue.reason).toContain('med-agent-hub-fda-label-seed');
    expect(JSON.stringify(ctx.router.chatRequests()[0].body.messages)).not.toContain('Drug reference');
  });
});

describe('drug safety over an ATC classification export (classification only)', () => {
  const ctx = useDrugSafetyHub({ DRUG_SAFETY_SOURCE_FORMAT: 'atc', DRUG_SAFETY_DATASET_PATH: 'test/fixtures/drug-safety/atc-export.tsv', DRUG_SAFETY_CROSS_REACTIVITY_PATH: 'test/fixtures/drug-safety/cross-reactivity.json' });

  test('class checks run end to end: duplicate therapy in the same ATC subgroup', async () => {
    ctx.router.script({ content: answer('Ibuprofen could be added [1].', [1]) });
    const { envelope } = await blocking(ctx.hub, ask('on-naproxen', 'Can I add ibuprofen?'));
    expect(envelope.safetyCheck.package).toMatchObject({ id: 'test-atc-export', source_format: 'atc', review_state: 'clinically_approved' });
    expect(envelope.safetyStatus).toBe('checked');
    expect(envelope.safetyWarnings).toEqual([{ type: 'interaction', drug: 'ibuprofen', detail: 'same ATC class (M01AE) as active order naproxen — possible duplicate therapy', severity: null }]);
  });

  test('an ATC export has no rules: warfarin gives no interaction', async () => {
    ctx.router.script({ content: answer('Ibuprofen could be added [1].', [1]) });
    const { envelope } = await blocking(ctx.hub, ask('on-warfarin', 'Can I add ibuprofen?'));
    // Warfarin is not in the export, so the order is unmapped and the result is limited, never clean.
    expect(envelope.safetyStatus).toBe('limited');
    expect(envelope).not.toHaveProperty('safetyWarnings');
  });
});

describe('drug safety turned off in a profile', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-ds-levels-'));
  const levels = path.join(dir, 'levels.yaml');
  fs.writeFileSync(levels, fs.readFileSync(path.join(ROOT, 'profiles/levels.yaml'), 'utf8').replace('    drug_safety: true\n', '    drug_safety: false\n'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ctx = useDrugSafetyHub({ ...APPROVED_ENV, HUB_PROFILES_PATH: levels, HUB_PROMPTS_DIR: path.join(ROOT, 'prompts') });

  test('the drained envelope reports unavailable and omits safetyWarnings', async () => {
    ctx.router.script({ content: answer('Ibuprofen would add bleeding risk on top of warfarin [1].', [1]) });
    const { envelope } = await blocking(ctx.hub, ask('on-warfarin', PINNED.interaction.question));
    expectSafetyKeys(envelope);
    expect(envelope.safetyStatus).toBe('unavailable');
    expect(envelope).not.toHaveProperty('safetyWarnings');
    expect(envelope.safetyCheck.issues.map((i: any) => i.id)).toEqual(['drug_safety_disabled']);
    expect(JSON.stringify(ctx.router.chatRequests()[0].body.messages)).not.toContain('Drug reference');
  });
});

describe('drug safety without a usable package', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-ds-pkg-'));
  const malformed = path.join(dir, 'malformed.json');
  fs.writeFileSync(malformed, JSON.stringify({ id: 'x', version: '1', entries: [] }));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe.each([
    ['no package file', path.join(dir, 'missing.json'), 'package_unreadable'],
    ['a malformed package', malformed, 'package_malformed'],
  ])('%s', (_name, datasetPath, issueId) => {
    const ctx = useDrugSafetyHub({ DRUG_SAFETY_DATASET_PATH: datasetPath });

    test('the hub starts, answers, and reports unavailable with the reason', async () => {
      ctx.router.script({ content: answer('Ibuprofen would add bleeding risk on top of warfarin [1].', [1]) });
      const { status, envelope } = await blocking(ctx.hub, ask('on-warfarin', PINNED.interaction.question));
      expect(status).toBe(200);
      expect(envelope.answer).toContain('Ibuprofen');
      expectSafetyKeys(envelope);
      expect(envelope.safetyStatus).toBe('unavailable');
      expect(envelope.safetyCheck.package).toBeNull();
      expect(envelope.safetyCheck.issues.map((i: any) => i.id)).toEqual([issueId]);
      expect(ctx.logs.join('')).toContain(issueId);
    });
  });
});
