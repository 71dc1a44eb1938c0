/**
 * Runs scenarios through profiles against the hub, one JSON line per finished turn in
 * `<out>/results.jsonl`. Resumable: a turn whose key is already in that file is not asked again.
 * Scripted mode asks each scenario's right reply and every wrong one; otherwise the model answers once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MedAgentHub, APIError, HubClientError } from '../clients/js/src/index';
import type { EvalBackend } from './backend';
import type { Scenario, ScriptedReply, WrongReply } from './scenarios';
import { citedIds, gateOutcome, knowledgeRecordIds, gateView, scoreAnswer, type AnswerScore, type GateOutcome, type GateView, type ScoredEnvelope } from './score';

/** A real model may take minutes for one blocking answer (the client's own default is 30 s to headers). */
const ANSWER_TIMEOUT_MS = 60 * 60 * 1000;

export interface TurnResult {
  key: string;
  scenario_id: string;
  profile: string;
  /** `model` (a real model's answer), `right`, or `wrong-<n>` (scripted replies). */
  variant: string;
  wrong_kind: WrongReply['kind'] | null;
  /** What the scenario says the gate must do: right (pass clean), flag, pass (a known gap); null for a model answer. */
  expected_gate: 'right' | 'flag' | 'pass' | null;
  /** The correlation id sent as `context.request_id`: the trace line carries it under `correlation.request_id`. */
  request_id: string;
  status: 'ok' | 'error';
  error: { status: number | null; code: string | null; message: string } | null;
  latency_ms: number;
  answer: string | null;
  cited: string[];
  /** Knowledge-base records in the turn's context or references. */
  knowledge_records: string[];
  temporal_status: string | null;
  validation_status: string | null;
  safety_status: string | null;
  safety_warnings: number;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
  gate: GateView | null;
  gate_outcome: GateOutcome | null;
  score: AnswerScore | null;
  finished_at: string;
}

export interface RunPlan {
  scenarios: readonly Scenario[];
  profiles: readonly string[];
  outDir: string;
  concurrency: number;
  scripted: boolean;
  onTurn?: (result: TurnResult, done: number, total: number) => void;
}

interface Turn {
  scenario: Scenario;
  profile: string;
  variant: string;
  reply: ScriptedReply | null;
  wrong: WrongReply | null;
}

export const RESULTS_FILE = 'results.jsonl';

export function turnKey(scenarioId: string, profile: string, variant: string): string {
  return `${scenarioId}|${profile}|${variant}`;
}

/** Turns of one job: scripted mode keeps a scenario's turns in one job (the router tells turns apart by question). */
function jobsOf(plan: RunPlan): Turn[][] {
  const turnsOf = (s: Scenario, profile: string): Turn[] => {
    if (!plan.scripted || !s.scripted) return [{ scenario: s, profile, variant: 'model', reply: null, wrong: null }];
    return [
      { scenario: s, profile, variant: 'right', reply: s.scripted.right, wrong: null },
      ...s.scripted.wrong.map((w, i) => ({ scenario: s, profile, variant: `wrong-${i + 1}`, reply: w, wrong: w })),
    ];
  };
  if (plan.scripted) return plan.scenarios.map((s) => plan.profiles.flatMap((p) => turnsOf(s, p)));
  return plan.scenarios.flatMap((s) => plan.profiles.map((p) => turnsOf(s, p)));
}

/** Keys already in the results file (a torn last line from an interrupted run is ignored and re-run). */
export function finishedKeys(outDir: string): Set<string> {
  const file = path.join(outDir, RESULTS_FILE);
  const keys = new Set<string>();
  if (!fs.existsSync(file)) return keys;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      keys.add((JSON.parse(line) as TurnResult).key);
    } catch {
      // an interrupted write: that turn runs again
    }
  }
  return keys;
}

export function readResults(outDir: string): TurnResult[] {
  const file = path.join(outDir, RESULTS_FILE);
  if (!fs.existsSync(file)) return [];
  const byKey = new Map<string, TurnResult>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as TurnResult;
      byKey.set(r.key, r);
    } catch {
      // torn line
    }
  }
  return [...byKey.values()];
}

/** Runs every turn not yet in the results file; returns how many ran and how many were skipped as finished. */
export async function runTurns(plan: RunPlan, backend: EvalBackend): Promise<{ ran: number; skipped: number }> {
  fs.mkdirSync(plan.outDir, { recursive: true });
  const done = finishedKeys(plan.outDir);
  const jobs = jobsOf(plan)
    .map((turns) => turns.filter((t) => !done.has(turnKey(t.scenario.id, t.profile, t.variant))))
    .filter((turns) => turns.length > 0);
  const total = jobs.reduce((n, j) => n + j.length, 0);
  const skipped = jobsOf(plan).reduce((n, j) => n + j.length, 0) - total;
  const client = new MedAgentHub({ baseURL: backend.hub.url, timeoutMs: ANSWER_TIMEOUT_MS });
  const file = path.join(plan.outDir, RESULTS_FILE);
  let finished = 0;
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      for (const turn of job) {
        const result = await askTurn(client, backend, turn);
        fs.appendFileSync(file, `${JSON.stringify(result)}\n`);
        finished++;
        plan.onTurn?.(result, finished, total);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.concurrency, jobs.length)) }, worker));
  return { ran: finished, skipped };
}

function requestOf(turn: Turn, requestId: string): Record<string, unknown> {
  const { scenario } = turn;
  const context = { request_id: requestId, session: 'eval' };
  if ('inline' in scenario.chart) {
    return { model: turn.profile, messages: [{ role: 'user', content: scenario.chart.inline }, { role: 'user', content: scenario.question }], context };
  }
  return { model: turn.profile, patient: scenario.chart.patient, messages: [{ role: 'user', content: scenario.question }], context };
}

async function askTurn(client: MedAgentHub, backend: EvalBackend, turn: Turn): Promise<TurnResult> {
  const key = turnKey(turn.scenario.id, turn.profile, turn.variant);
  const requestId = `eval~${turn.scenario.id}~${turn.profile}~${turn.variant}`;
  const base = {
    key, scenario_id: turn.scenario.id, profile: turn.profile, variant: turn.variant, wrong_kind: turn.wrong?.kind ?? null,
    expected_gate: turn.reply === null ? null : turn.wrong ? turn.wrong.gate : ('right' as const), request_id: requestId,
  };
  if (turn.reply) backend.scripted?.set(turn.scenario.question, turn.reply);
  const started = performance.now();
  try {
    const result = await client.ask(requestOf(turn, requestId) as never);
    const latency = performance.now() - started;
    const env = result.envelope as unknown as ScoredEnvelope;
    const gate = gateView(env);
    const score = scoreAnswer(turn.scenario, env);
    const usage = result.completion.usage;
    return {
      ...base,
      status: 'ok', error: null, latency_ms: round(latency), answer: env.answer ?? '',
      cited: citedIds(env).resolved,
      knowledge_records: knowledgeRecordIds(env),
      temporal_status: env.temporalGate?.status ?? null,
      validation_status: env.answerValidation?.status ?? null,
      safety_status: env.drug_safety?.status ?? env.safetyStatus ?? null,
      safety_warnings: env.drug_safety?.warnings?.length ?? 0,
      usage: usage ? { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens } : null,
      gate,
      gate_outcome: base.expected_gate === null ? null : gateOutcome(gate, { gate: base.expected_gate, signals: turn.wrong?.signals }),
      score,
      finished_at: new Date().toISOString(),
    };
  } catch (err) {
    if (!(err instanceof HubClientError)) throw err;
    return {
      ...base,
      status: 'error',
      error: { status: err instanceof APIError ? err.status : null, code: err instanceof APIError ? err.code : err.kind, message: err.message.slice(0, 300) },
      latency_ms: round(performance.now() - started), answer: null, cited: [], knowledge_records: [], temporal_status: null, validation_status: null, safety_status: null,
      safety_warnings: 0, usage: null, gate: null, gate_outcome: null, score: null, finished_at: new Date().toISOString(),
    };
  } finally {
    if (turn.reply) backend.scripted?.clear(turn.scenario.question);
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
