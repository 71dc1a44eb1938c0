/**
 * `npm run eval -- --profiles a,b --scenarios dir --out dir [--concurrency N] [--scripted] [--only id,id]`
 * (README "Evaluation"). Exit 1 on a bad flag or, in scripted mode, when a wrong reply a gate must flag was
 * not caught or a right reply was marked; 0 otherwise (a model's scores are data, not a failure).
 */
import path from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import { runEval, scriptedFailures, type EvalOptions } from './run-eval';
import { ROOT } from './backend';

const USAGE = 'usage: npm run eval -- --profiles a,b [--scenarios eval/scenarios] [--out eval-out] [--concurrency 1] [--scripted] [--only id,id]';

export function parseArgs(argv: readonly string[]): Omit<EvalOptions, 'env'> {
  const opts: Omit<EvalOptions, 'env'> = { profiles: [], scenariosDir: path.join(ROOT, 'eval/scenarios'), outDir: path.resolve('eval-out'), concurrency: 1, scripted: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    if (flag === '--profiles') opts.profiles = value().split(',').map((s) => s.trim()).filter(Boolean);
    else if (flag === '--scenarios') opts.scenariosDir = path.resolve(value());
    else if (flag === '--out') opts.outDir = path.resolve(value());
    else if (flag === '--concurrency') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) throw new Error(`--concurrency must be a whole number ≥ 1\n${USAGE}`);
      opts.concurrency = n;
    } else if (flag === '--scripted') opts.scripted = true;
    else if (flag === '--only') opts.scenarioIds = value().split(',').map((s) => s.trim()).filter(Boolean);
    else throw new Error(`unknown flag ${flag}\n${USAGE}`);
  }
  if (opts.profiles.length === 0) throw new Error(`--profiles is required\n${USAGE}`);
  return opts;
}

async function main(): Promise<void> {
  let parsed: Omit<EvalOptions, 'env'>;
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  // A bar on a terminal; in a pipe or CI one line at the end (no carriage-return noise in logs).
  const bar = process.stderr.isTTY ? new SingleBar({ format: 'eval [{bar}] {value}/{total} turns · {last}', hideCursor: true }, Presets.shades_classic) : null;
  const { report, ran, skipped, unmatchedScriptedRequests } = await runEval({
    ...parsed,
    env: process.env,
    onTurn: (r, done, total) => {
      if (!bar) return;
      if (done === 1) bar.start(total, 0, { last: '' });
      bar.update(done, { last: `${r.scenario_id} · ${r.profile} · ${r.variant}` });
    },
  });
  bar?.stop();
  const lines = [`eval: ${ran} turns run, ${skipped} already finished in ${parsed.outDir}`];
  for (const p of report.profiles) {
    const f = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
    lines.push(`  ${p.profile}: ${p.turns} turns, ${p.errors} errors · citation F1 ${f(p.citations.f1)} · abstention ${f(p.abstention.accuracy)} · facts ${f(p.facts.rate)} · catch ${f(p.gates.catch_rate)} · false-fail ${f(p.gates.false_fail_rate)} · p50 ${p.latency.total_ms.p50 ?? 'n/a'} ms`);
  }
  lines.push(`  report: ${path.join(parsed.outDir, 'report.html')} (and report.json)`);
  process.stdout.write(`${lines.join('\n')}\n`);
  if (parsed.scripted) {
    const failures = scriptedFailures(report);
    if (unmatchedScriptedRequests > 0) failures.push(`${unmatchedScriptedRequests} router request(s) matched no scenario question`);
    if (failures.length > 0) {
      process.stderr.write(`scripted eval: ${failures.length} failure(s)\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
      process.exit(1);
    }
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`eval failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
