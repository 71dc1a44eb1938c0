/**
 * Scenario files (`eval/scenario.schema.json`): every `*.json` of a folder, validated with ajv; a bad file
 * stops the run naming the file and the field, so a typo never silently scores as a miss.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import schema from './scenario.schema.json';

export interface ScriptedReply {
  answer: string;
  citations: number[];
}

export type WrongKind = 'wrong_date' | 'wrong_value' | 'wrong_trend' | 'past_as_upcoming' | 'wrong_last_visit' | 'unresolved_citation' | 'uncited_claim';

export interface WrongReply extends ScriptedReply {
  kind: WrongKind;
  /** flag: the hub must mark it; pass: a known gap no deterministic gate is meant to catch. */
  gate: 'flag' | 'pass';
  signals?: string[];
}

export interface ExpectedFact {
  value?: string;
  date?: string;
  trend?: 'increased' | 'decreased' | 'stable';
}

export type ScenarioChart = { inline: string } | { patient: string; records?: Array<Record<string, unknown>> };

export interface Scenario {
  schema_version: 'eval_scenario.v1';
  id: string;
  title?: string;
  synthetic_notice: string;
  tags?: string[];
  chart: ScenarioChart;
  question: string;
  expected_citations: string[];
  expected_facts: ExpectedFact[];
  forbidden_claims: string[];
  expect_abstain: boolean;
  knowledge?: { expected_safety_ids: string[] };
  scripted?: { right: ScriptedReply; wrong: WrongReply[] };
}

const validate = new Ajv2020({ allErrors: false, strict: false }).compile<Scenario>(schema);

export function parseScenario(value: unknown, where: string): Scenario {
  if (validate(value)) return value;
  const e = validate.errors?.[0];
  throw new Error(`${where}: ${e?.instancePath || '(top)'} ${e?.message ?? 'is invalid'}`);
}

/** The folder's scenarios sorted by id; `ids` keeps only those named. Ids must be unique. */
export function loadScenarios(dir: string, ids?: readonly string[]): Scenario[] {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  if (files.length === 0) throw new Error(`no scenario files (*.json) in ${dir}`);
  const seen = new Map<string, string>();
  const out: Scenario[] = [];
  for (const file of files) {
    const where = path.join(dir, file);
    const scenario = parseScenario(JSON.parse(fs.readFileSync(where, 'utf8')), where);
    const before = seen.get(scenario.id);
    if (before) throw new Error(`${where}: scenario id ${scenario.id} is also used by ${before}`);
    seen.set(scenario.id, where);
    out.push(scenario);
  }
  const kept = ids ? out.filter((s) => ids.includes(s.id)) : out;
  const missing = ids?.filter((id) => !seen.has(id)) ?? [];
  if (missing.length) throw new Error(`unknown scenario id(s): ${missing.join(', ')}`);
  return kept.sort((a, b) => a.id.localeCompare(b.id));
}

/** Scripted mode tells turns apart by their question: each must be unique and carry scripted replies. */
export function checkScriptable(scenarios: readonly Scenario[]): void {
  const questions = new Map<string, string>();
  for (const s of scenarios) {
    if (!s.scripted) throw new Error(`scenario ${s.id} has no scripted replies (needed by --scripted)`);
    const other = questions.get(s.question);
    if (other) throw new Error(`scenarios ${other} and ${s.id} ask the same question; --scripted needs each question unique`);
    questions.set(s.question, s.id);
  }
}
