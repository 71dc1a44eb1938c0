/**
 * `npm run eval` against the embedded llama.cpp engine with the tiny random-weight GGUF (issue #31): the
 * CLI, in its own Node process as a person runs it, starts the hub in process with the normal config
 * loader, asks two scenarios through the fast profile, and writes a report that renders. The answers are
 * noise; what is asserted is that the run completes end to end and every figure is computed from it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { EvalReport } from '../../eval/aggregate';
import { embeddedEngineUnavailable, tinyCatalogueDir } from '../support/embedded-hub';
import { renderReport } from '../support/eval-report-page';
import { ROOT } from '../support/hub';

/** A backstop only: the run ends by itself (two turns of a 0.5 M-parameter model, about 6 s here). */
jest.setTimeout(120_000);

const unavailable = embeddedEngineUnavailable();
if (unavailable) console.warn(`eval on the embedded engine skipped: ${unavailable}`);
const suite = unavailable ? describe.skip : describe;

suite('npm run eval on the embedded engine (tiny GGUF)', () => {
  let modelsDir: string;
  let out: string;
  let report: EvalReport;
  let stdout: string;

  beforeAll(async () => {
    modelsDir = tinyCatalogueDir();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-eval-embedded-'));
    const env = {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(),
      LLM_BACKEND: 'embedded', MODELS_DIR: modelsDir, EMBEDDED_THREADS: '1', KNOWLEDGE_DB_PATH: ':memory:', LOG_LEVEL: 'error',
    };
    const args = ['-r', path.join(ROOT, 'eval/register.js'), path.join(ROOT, 'eval/cli.ts'),
      '--profiles', 'single-12b-fast', '--only', 'weight-loss-trend,abstain-no-bp', '--out', out];
    ({ stdout } = await promisify(execFile)(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8', timeout: 110_000 }));
    report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
  });
  afterAll(() => {
    if (out) fs.rmSync(out, { recursive: true, force: true });
    if (modelsDir) fs.rmSync(modelsDir, { recursive: true, force: true });
  });

  test('the run completes: both turns answered by the embedded engine, each joined to its trace line', () => {
    expect(stdout).toContain('eval: 2 turns run, 0 already finished');
    expect(report.run).toMatchObject({ mode: 'model', profiles: ['single-12b-fast'], scenarios: 2, turns: 2 });
    expect(report.run.backend).toContain('embedded');
    for (const t of report.turns) {
      expect(t.status).toBe('ok');
      expect(typeof t.answer).toBe('string');
      expect(t.gate_outcome).toBeNull(); // no scripted reply: gate figures are n/a
      expect(t.trace?.stages.find((s) => s.stage === 'answer')?.duration_ms).toBeGreaterThan(0);
      expect(t.usage!.completion_tokens).toBeGreaterThan(0);
    }
    const [p] = report.profiles;
    expect(p.gates.catch_rate).toBeNull();
    expect(p.knowledge_safety).toMatchObject({ recall: null, note: expect.stringContaining('n/a') });
    expect(p.latency.stages.answer.n).toBe(2);
    expect(p.tokens.total).toBeGreaterThan(0);
  });

  test('report.html renders offline (screenshot in test-artefacts/eval/)', async () => {
    const rendered = await renderReport(path.join(out, 'report.html'), 'embedded-report');
    expect(rendered.pageErrors).toEqual([]);
    expect(rendered.networkRequests).toEqual([]);
    expect(rendered.paintedCanvases).toBe(6);
  });
});
