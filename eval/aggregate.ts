/**
 * report.json: per-profile figures over the run's turns and every turn with its trace excerpt.
 * Answer-quality figures (citations, abstention, facts, forbidden claims, knowledge) are read from the
 * answers a model gave, or in scripted mode from the hub's envelopes for the scripted right replies;
 * gate figures from scripted replies only.
 */
import type { Scenario } from './scenarios';
import type { TurnResult } from './runner';
import type { GateOutcome } from './score';
import type { TraceExcerpt } from './traces';

export interface Quantiles { n: number; p50: number | null; p95: number | null; max: number | null }

export interface ProfileSummary {
  profile: string;
  turns: number;
  errors: number;
  error_codes: Record<string, number>;
  citations: { tp: number; fp: number; fn: number; precision: number | null; recall: number | null; f1: number | null };
  abstention: { n: number; correct: number; accuracy: number | null; expected_abstain: number };
  facts: { hit: number; total: number; rate: number | null };
  forbidden: { hits: number; turns_with_hits: number };
  gates: {
    outcomes: Record<GateOutcome, number>;
    /** Wrong replies a gate must flag that it flagged with an expected signal, over all such replies (null without any). */
    catch_rate: number | null;
    /** Right replies the hub marked, over all right replies. */
    false_fail_rate: number | null;
    by_kind: Record<string, { n: number; caught: number }>;
  };
  drug_safety: Record<string, number>;
  knowledge_safety: { recall: number | null; hit: number; total: number; note: string | null };
  latency: { total_ms: Quantiles; stages: Record<string, Quantiles> };
  tokens: { prompt: number; completion: number; total: number; mean_total: number | null };
}

export interface ReportTurn extends TurnResult { title: string; trace: TraceExcerpt | null }

export interface EvalReport {
  schema_version: 'eval_report.v1';
  notice: string;
  generated_at: string;
  run: { mode: 'scripted' | 'model'; backend: string; profiles: string[]; scenarios: number; scenarios_dir: string; turns: number };
  profiles: ProfileSummary[];
  turns: ReportTurn[];
}

export function quantiles(values: readonly number[]): Quantiles {
  if (values.length === 0) return { n: 0, p50: null, p95: null, max: null };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { n: sorted.length, p50: rank(0.5), p95: rank(0.95), max: sorted[sorted.length - 1] };
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : null);
const OUTCOMES: GateOutcome[] = ['clean', 'false_fail', 'caught', 'caught_other', 'missed', 'gap_passed', 'gap_caught', 'no_gate'];

function summarize(profile: string, turns: readonly TurnResult[], traces: Map<string, TraceExcerpt>): ProfileSummary {
  const ok = turns.filter((t) => t.status === 'ok');
  const answers = ok.filter((t) => t.variant === 'model' || t.variant === 'right');
  const cit = answers.reduce((a, t) => ({ tp: a.tp + t.score!.citations.tp, fp: a.fp + t.score!.citations.fp, fn: a.fn + t.score!.citations.fn }), { tp: 0, fp: 0, fn: 0 });
  const precision = ratio(cit.tp, cit.tp + cit.fp);
  const recall = ratio(cit.tp, cit.tp + cit.fn);
  const f1 = precision !== null && recall !== null ? (precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0) : null;
  const outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<GateOutcome, number>;
  const byKind: Record<string, { n: number; caught: number }> = {};
  for (const t of ok) {
    if (!t.gate_outcome) continue;
    outcomes[t.gate_outcome]++;
    if (t.expected_gate === 'flag' && t.wrong_kind && t.gate_outcome !== 'no_gate') {
      const k = (byKind[t.wrong_kind] ??= { n: 0, caught: 0 });
      k.n++;
      if (t.gate_outcome === 'caught') k.caught++;
    }
  }
  const mustFlag = outcomes.caught + outcomes.caught_other + outcomes.missed;
  const rights = outcomes.clean + outcomes.false_fail;
  const knowledge = answers.map((t) => t.score!.knowledge_safety).filter((k): k is { hit: number; total: number } => k !== null);
  const kHit = knowledge.reduce((n, k) => n + k.hit, 0);
  const kTotal = knowledge.reduce((n, k) => n + k.total, 0);
  const stageTimes: Record<string, number[]> = {};
  for (const t of ok) {
    for (const s of traces.get(t.request_id)?.stages ?? []) (stageTimes[s.stage] ??= []).push(s.duration_ms);
  }
  const tokens = ok.reduce((a, t) => {
    const u = traces.get(t.request_id)?.usage ?? t.usage;
    return { prompt: a.prompt + (u?.prompt_tokens ?? 0), completion: a.completion + (u?.completion_tokens ?? 0), total: a.total + (u?.total_tokens ?? 0) };
  }, { prompt: 0, completion: 0, total: 0 });
  const errorCodes: Record<string, number> = {};
  for (const t of turns) if (t.status === 'error') errorCodes[t.error?.code ?? 'unknown'] = (errorCodes[t.error?.code ?? 'unknown'] ?? 0) + 1;
  const drugSafety: Record<string, number> = {};
  for (const t of ok) drugSafety[t.safety_status ?? 'absent'] = (drugSafety[t.safety_status ?? 'absent'] ?? 0) + 1;
  return {
    profile,
    turns: turns.length,
    errors: turns.length - ok.length,
    error_codes: errorCodes,
    citations: { ...cit, precision, recall, f1 },
    abstention: {
      n: answers.length,
      correct: answers.filter((t) => t.score!.abstain_correct).length,
      accuracy: ratio(answers.filter((t) => t.score!.abstain_correct).length, answers.length),
      // abstained === abstain_correct exactly when the scenario expected an abstention
      expected_abstain: answers.filter((t) => t.score!.abstained === t.score!.abstain_correct).length,
    },
    facts: { hit: answers.reduce((n, t) => n + t.score!.facts.hit, 0), total: answers.reduce((n, t) => n + t.score!.facts.total, 0), rate: ratio(answers.reduce((n, t) => n + t.score!.facts.hit, 0), answers.reduce((n, t) => n + t.score!.facts.total, 0)) },
    forbidden: { hits: answers.reduce((n, t) => n + t.score!.forbidden_hits.length, 0), turns_with_hits: answers.filter((t) => t.score!.forbidden_hits.length > 0).length },
    gates: { outcomes, catch_rate: ratio(outcomes.caught, mustFlag), false_fail_rate: ratio(outcomes.false_fail, rights), by_kind: byKind },
    drug_safety: drugSafety,
    knowledge_safety: kTotal > 0
      ? { recall: kHit / kTotal, hit: kHit, total: kTotal, note: null }
      : { recall: null, hit: 0, total: 0, note: 'n/a: no scenario in this run expects knowledge-base safety items' },
    latency: { total_ms: quantiles(ok.map((t) => t.latency_ms)), stages: Object.fromEntries(Object.entries(stageTimes).map(([s, v]) => [s, quantiles(v)])) },
    tokens: { ...tokens, mean_total: ok.length > 0 ? tokens.total / ok.length : null },
  };
}

export function buildReport(opts: {
  results: readonly TurnResult[]; scenarios: readonly Scenario[]; profiles: readonly string[]; traces: Map<string, TraceExcerpt>;
  mode: 'scripted' | 'model'; backend: string; scenariosDir: string;
}): EvalReport {
  const ids = new Set(opts.scenarios.map((s) => s.id));
  const titles = new Map(opts.scenarios.map((s) => [s.id, s.title ?? s.id]));
  // Only this run's scenarios and profiles (an out dir may hold other runs' lines), in a stable order.
  const results = opts.results
    .filter((r) => ids.has(r.scenario_id) && opts.profiles.includes(r.profile) && (opts.mode === 'scripted' ? r.variant !== 'model' : r.variant === 'model'))
    .sort((a, b) => a.scenario_id.localeCompare(b.scenario_id) || opts.profiles.indexOf(a.profile) - opts.profiles.indexOf(b.profile) || a.variant.localeCompare(b.variant, 'en', { numeric: true }));
  return {
    schema_version: 'eval_report.v1',
    notice: 'Synthetic scenarios; not clinical guidance.',
    generated_at: new Date().toISOString(),
    run: { mode: opts.mode, backend: opts.backend, profiles: [...opts.profiles], scenarios: opts.scenarios.length, scenarios_dir: opts.scenariosDir, turns: results.length },
    profiles: opts.profiles.map((p) => summarize(p, results.filter((r) => r.profile === p), opts.traces)),
    turns: results.map((r) => ({ ...r, title: titles.get(r.scenario_id) ?? r.scenario_id, trace: opts.traces.get(r.request_id) ?? null })),
  };
}
