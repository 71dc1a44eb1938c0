/**
 * One evaluation run: start the backend, run the turns not yet in the out dir, then write report.json
 * and report.html from every finished turn of this scenario set and these profiles.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildReport, type EvalReport } from './aggregate';
import { startBackend } from './backend';
import { renderHtml } from './report-html';
import { readResults, runTurns, type TurnResult } from './runner';
import { checkScriptable, loadScenarios } from './scenarios';
import { readTraceExcerpts, TRACE_DIR } from './traces';

export interface EvalOptions {
  profiles: string[];
  scenariosDir: string;
  outDir: string;
  concurrency: number;
  scripted: boolean;
  /** Only these scenario ids (default: every file in the folder). */
  scenarioIds?: string[];
  /** The hub's settings (process.env for the CLI). */
  env: Record<string, string | undefined>;
  onTurn?: (result: TurnResult, done: number, total: number) => void;
  onStart?: (total: number, skipped: number) => void;
}

export interface EvalOutcome {
  report: EvalReport;
  ran: number;
  skipped: number;
  /** Scripted mode: router requests that matched no scenario (should be 0). */
  unmatchedScriptedRequests: number;
}

export async function runEval(opts: EvalOptions): Promise<EvalOutcome> {
  const scenarios = loadScenarios(opts.scenariosDir, opts.scenarioIds);
  if (opts.scripted) checkScriptable(scenarios);
  fs.mkdirSync(path.join(opts.outDir, TRACE_DIR), { recursive: true });
  const backend = await startBackend({ env: opts.env, traceDir: path.join(opts.outDir, TRACE_DIR), scripted: opts.scripted, scenarios });
  let counts: { ran: number; skipped: number };
  try {
    counts = await runTurns({ scenarios, profiles: opts.profiles, outDir: opts.outDir, concurrency: opts.concurrency, scripted: opts.scripted, onTurn: opts.onTurn }, backend);
    await backend.hub.trace.flush();
  } finally {
    await backend.close();
  }
  const report = buildReport({
    results: readResults(opts.outDir), scenarios, profiles: opts.profiles, traces: readTraceExcerpts(opts.outDir),
    mode: opts.scripted ? 'scripted' : 'model', backend: backend.description, scenariosDir: opts.scenariosDir,
  });
  fs.writeFileSync(path.join(opts.outDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(path.join(opts.outDir, 'report.html'), renderHtml(report));
  return { report, ...counts, unmatchedScriptedRequests: backend.scripted?.unmatched ?? 0 };
}

/** Scripted mode's bar: every wrong reply a gate must flag is caught, no right reply is marked. */
export function scriptedFailures(report: EvalReport): string[] {
  const out: string[] = [];
  for (const t of report.turns) {
    if (t.status === 'error') out.push(`${t.key}: error ${t.error?.code ?? ''} ${t.error?.message ?? ''}`);
    else if (t.gate_outcome === 'missed' || t.gate_outcome === 'caught_other') out.push(`${t.key}: ${t.wrong_kind} not caught (${t.gate_outcome}; signals ${t.gate?.signals.join(' ') || 'none'})`);
    else if (t.gate_outcome === 'false_fail') out.push(`${t.key}: right reply marked (${t.gate?.signals.join(' ')})`);
  }
  return out;
}
