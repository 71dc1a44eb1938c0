/** Drug safety's part of the turn (engine/stages/drug-safety.ts): evidence appended to the ledger, envelope keys, budget errors. */
import path from 'node:path';
import { createDrugSafety } from '../../../server/checks/drug-safety';
import { parseChart } from '../../../server/context/inline-chart';
import { HubError, InsufficientContextError, TokenizationUnavailableError } from '../../../server/errors';
import { createTurn } from '../../../server/engine/run';
import { addDrugEvidence, checkDrugSafety, drugSafetyKeys, explainBudgetFailure } from '../../../server/engine/stages/drug-safety';
import { adoptDraft } from '../../../server/engine/slices/answer';
import { adoptLedger, noteTemporalFacts, openChart } from '../../../server/engine/slices/context';
import type { EngineDeps } from '../../../server/engine/types';
import { loadCatalog } from '../../../server/profiles/catalog';

const ROOT = path.resolve(__dirname, '../../..');
const catalog = loadCatalog({ profilesPath: path.join(ROOT, 'profiles/levels.yaml'), promptsDir: path.join(ROOT, 'prompts') });
const drugSafety = createDrugSafety({
  format: 'json',
  datasetPath: path.join(ROOT, 'test/fixtures/drug-safety/approved-package.json'),
  crossReactivityPath: path.join(ROOT, 'test/fixtures/drug-safety/cross-reactivity.json'),
  minInteractionSeverity: 'minor',
  weightConceptUuid: null,
  weightMaxAgeDays: 90,
});
const CHART = 'Patient: 41-year-old Male\n[1] (2026-03-01) Medication: Warfarin 5 mg\n[2] Allergy: Latex';

function turnFor(profile: string, question: string) {
  const turn = createTurn({ model: profile, messages: [{ role: 'user', content: question }] }, catalog.get(profile)!, new AbortController().signal);
  openChart(turn, question, []);
  noteTemporalFacts(turn, '2026-03-10', null);
  return turn;
}

describe('addDrugEvidence', () => {
  test('appends the references after the patient records; the chart text keeps its bytes and gains their lines', () => {
    const turn = turnFor('single-12b-fast', 'Can I add ibuprofen?');
    const ledger = parseChart(CHART, { maxRecords: 100 });
    const out = addDrugEvidence(turn, { drugSafety } as unknown as EngineDeps, ledger);
    expect(out.records.slice(0, 2)).toEqual(ledger.records);
    expect(out.records[2]).toMatchObject({ stableId: 'drug-reference:3', source: 'drug-safety', sourcePriority: 100, resourceType: 'drug_reference', resourceUuid: 'ibuprofen', date: null, mandatory: true });
    expect(out.originalText.startsWith(`${CHART}\n[3] Drug reference — Ibuprofen (NSAID; ATC M01AE01).`)).toBe(true);
    expect(out.originalText.endsWith('\n')).toBe(true);
    expect(out.sources).toEqual(['inline', 'drug-safety']);
    // Before the checks ran, the envelope says they did not (never a clean badge).
    expect(drugSafetyKeys(turn.drugSafety)).toMatchObject({ safetyStatus: 'unavailable', safetyCheck: { issues: [{ id: 'checks_not_run' }] } });
  });

  test('with drug safety off for the profile, the ledger is untouched and the result says so', () => {
    const turn = turnFor('single-12b-fast', 'Can I add ibuprofen?');
    const profile = { ...turn.profile, policies: { ...turn.profile.policies, drugSafety: false } };
    const off = { ...turn, profile };
    const ledger = parseChart(CHART, { maxRecords: 100 });
    expect(addDrugEvidence(off, { drugSafety } as unknown as EngineDeps, ledger)).toBe(ledger);
    expect(off.drugSafety.result).toMatchObject({ status: 'unavailable', issues: [{ id: 'drug_safety_disabled' }] });
  });

  test('checks run once, before answer_done, over the Answer prose and table rows', () => {
    const turn = turnFor('single-12b-fast', 'Pain relief?');
    const deps = { drugSafety } as unknown as EngineDeps;
    adoptLedger(turn, addDrugEvidence(turn, deps, parseChart(CHART, { maxRecords: 100 })));
    adoptDraft(turn, { answer: 'Options are listed.', citations: [], declared: [], rawBlocks: [], structured: true, blocks: [{ kind: 'table', title: 't', columns: [{ key: 'drug', label: 'Drug' }], rows: [{ cells: { drug: { text: 'Ibuprofen 400 mg', refs: [] } } }] }] });
    checkDrugSafety(turn, deps);
    expect(turn.drugSafety.result.status).toBe('limited'); // an inline chart
    expect(turn.drugSafety.result.warnings.map((w) => w.type)).toEqual(['interaction']);
    adoptDraft(turn, { ...turn.answer.draft!, blocks: [] });
    checkDrugSafety(turn, deps);
    expect(turn.drugSafety.result.warnings).toHaveLength(1);
    expect(turn.steps.filter((s) => s.role === 'drug_safety')).toHaveLength(1);
  });
});

describe('explainBudgetFailure', () => {
  const ledger = { records: [{ stableId: 'drug-reference:1', source: 'drug-safety', metadata: { drug: 'Ibuprofen' } }], originalText: '', preamble: '', sources: [] } as never;

  test('an insufficient_context error that holds a drug reference names the drug', () => {
    const err = new InsufficientContextError('selector', 'Mandatory evidence needs 9 tokens.', { mandatory_ids: ['inline:1', 'drug-reference:1'] });
    const out = explainBudgetFailure(err, ledger) as HubError;
    expect(out.message).toContain('Ibuprofen');
    expect(out.extra).toMatchObject({ source: 'selector', drug_references: ['Ibuprofen'], mandatory_ids: ['inline:1', 'drug-reference:1'] });
  });

  test.each([
    ['another code', new TokenizationUnavailableError('llama-router', 'x', { mandatory_ids: ['drug-reference:1'] })],
    ['no drug reference among the ids', new InsufficientContextError('selector', 'x', { mandatory_ids: ['inline:1'] })],
    ['not a HubError', new Error('boom')],
  ])('%s passes through unchanged', (_name, err) => {
    expect(explainBudgetFailure(err, ledger)).toBe(err);
  });
});
