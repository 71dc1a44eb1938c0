/**
 * `npm run eval --scripted` over the whole scenario set (issue #31): the fake router gives each scenario's
 * right reply and every wrong one through the deterministic profiles; every wrong date, value, trend, past
 * "upcoming" date, wrong last visit and unresolved citation must be caught (with the signal the scenario
 * names) and no right reply may be marked. The report renders in Chromium with no network.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EvalReport } from '../../eval/aggregate';
import { runEval, scriptedFailures, type EvalOutcome } from '../../eval/run-eval';
import { loadScenarios } from '../../eval/scenarios';
import { ROOT } from '../support/hub';
import { renderReport } from '../support/eval-report-page';

jest.setTimeout(120_000);

const SCENARIOS = path.join(ROOT, 'eval/scenarios');
const PROFILES = ['single-12b-fast', 'single-12b-bare', 'eval-12b-temporal-enforce', 'eval-12b-answer-only'];
const GATED = PROFILES.filter((p) => p !== 'eval-12b-answer-only');
// The approved fixture package, so drug-safety statuses other than `unavailable` show up (the bundled one is `proposed`).
const ENV = {
  LOG_LEVEL: 'silent', KNOWLEDGE_DB_PATH: ':memory:', HUB_TRACE_FLUSH_MS: '0',
  DRUG_SAFETY_DATASET_PATH: 'test/fixtures/drug-safety/approved-package.json', DRUG_SAFETY_CROSS_REACTIVITY_PATH: 'test/fixtures/drug-safety/cross-reactivity.json',
};

describe('npm run eval --scripted over eval/scenarios', () => {
  const scenarios = loadScenarios(SCENARIOS);
  let out: string;
  let first: EvalOutcome;
  let report: EvalReport;

  beforeAll(async () => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-eval-'));
    first = await runEval({ profiles: PROFILES, scenariosDir: SCENARIOS, outDir: out, concurrency: 2, scripted: true, env: ENV });
    report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
  });
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  test('the set has at least 30 synthetic scenarios, each with a right and a wrong scripted reply', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(30);
    for (const s of scenarios) {
      expect(s.synthetic_notice).toBe('Synthetic data; not clinical guidance.');
      expect(s.scripted?.wrong.length).toBeGreaterThan(0);
    }
  });

  test('every scenario × profile × reply ran once, answered, and found its trace line', () => {
    const perProfile = scenarios.reduce((n, s) => n + 1 + s.scripted!.wrong.length, 0);
    expect(first.ran).toBe(perProfile * PROFILES.length);
    expect(first.unmatchedScriptedRequests).toBe(0);
    expect(report.turns).toHaveLength(perProfile * PROFILES.length);
    for (const t of report.turns) {
      expect(t.status).toBe('ok');
      expect(t.trace?.hub_request_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(t.trace!.stages.map((s) => s.stage)).toContain('answer');
    }
  });

  test('gates: every wrong reply a gate must flag is caught, no right reply is marked (100 % / 0)', () => {
    expect(scriptedFailures(report)).toEqual([]);
    for (const p of report.profiles.filter((x) => GATED.includes(x.profile))) {
      expect(p.gates.catch_rate).toBe(1);
      expect(p.gates.false_fail_rate).toBe(0);
      // The acceptance's kinds are really in the set, on every gated profile.
      expect(p.gates.by_kind.wrong_date.n).toBeGreaterThanOrEqual(10);
      expect(p.gates.by_kind.wrong_value.n).toBeGreaterThanOrEqual(10);
      expect(p.gates.by_kind.wrong_trend.n).toBeGreaterThanOrEqual(5);
      expect(p.gates.outcomes.clean).toBe(scenarios.length);
    }
    // Without a gate, date and value errors pass unmarked: the report says no_gate rather than counting them caught.
    const answerOnly = report.profiles.find((p) => p.profile === 'eval-12b-answer-only')!;
    expect(answerOnly.gates.outcomes.no_gate).toBeGreaterThan(scenarios.length);
    expect(answerOnly.gates.by_kind.wrong_date).toBeUndefined();
  });

  test('answer figures for the right replies: citations, abstention, facts, forbidden claims; knowledge and drug safety reported', () => {
    for (const p of report.profiles) {
      expect(p.citations).toMatchObject({ precision: 1, recall: 1, f1: 1 });
      expect(p.abstention.accuracy).toBe(1);
      expect(p.abstention.expected_abstain).toBe(scenarios.filter((s) => s.expect_abstain).length);
      expect(p.facts.rate).toBe(1);
      expect(p.forbidden.hits).toBe(0);
      expect(p.knowledge_safety.total).toBe(1); // one scenario names a knowledge safety item
      expect(p.latency.total_ms.p95).not.toBeNull();
      expect(p.tokens.total).toBeGreaterThan(0);
    }
    const fast = report.profiles.find((p) => p.profile === 'single-12b-fast')!;
    expect(Object.keys(fast.latency.stages)).toEqual(expect.arrayContaining(['context', 'answer', 'gate']));
    // Inline charts are `limited` at best with an approved package; the QueryStore patients are read structurally.
    expect(fast.drug_safety.limited).toBeGreaterThan(0);
  });

  test('a wrong reply is scored as what the hub returned: the temporal patch replaces a wrong value', () => {
    const t = report.turns.find((x) => x.profile === 'single-12b-fast' && x.wrong_kind === 'wrong_value' && x.scenario_id === 'weight-loss-latest')!;
    expect(t.gate_outcome).toBe('caught');
    expect(t.gate?.signals).toContain('temporal:date_value_binding');
    expect(t.validation_status).toBe('edited');
    expect(t.answer).not.toContain('68 kg');
  });

  test('a second run over the same out dir resumes: nothing is asked again and the report is the same', async () => {
    const again = await runEval({ profiles: PROFILES, scenariosDir: SCENARIOS, outDir: out, concurrency: 2, scripted: true, env: ENV });
    expect(again.ran).toBe(0);
    expect(again.skipped).toBe(first.ran);
    expect(again.report.profiles).toEqual(report.profiles);
  });

  test('report.html renders offline in Chromium: every chart drawn, no network request, no script error', async () => {
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/<link[^>]+href=/i);
    const rendered = await renderReport(path.join(out, 'report.html'), 'scripted-report');
    expect(rendered.pageErrors).toEqual([]);
    expect(rendered.networkRequests).toEqual([]);
    expect(rendered.canvases).toBe(6);
    expect(rendered.paintedCanvases).toBe(6);
    expect(fs.statSync(rendered.screenshot).size).toBeGreaterThan(10_000);
  });
});
