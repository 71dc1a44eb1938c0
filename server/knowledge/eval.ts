/**
 * Evaluation over a gold set (knowledge-layer.md §6.6): question + patient → expected MKU ids and safety
 * items. Reports MKU recall@k, safety recall (100 % required), citation precision (the MKUs an extractive
 * answer cites that are expected) and the judge-score distribution. Runs `/v2/context` in process.
 */
import fs from 'node:fs';
import { runContext } from './pipeline/context';
import type { PatientContext, PipelineDeps } from './pipeline/types';

export interface GoldCase {
  id: string;
  query: string;
  patient_ehr: PatientContext;
  expected_mkus: string[];
  expected_safety_items: string[];
  mode?: 'full' | 'fallback_only';
  why?: string;
}

export interface GoldSet {
  k: number;
  cases: GoldCase[];
  unreviewed_mku?: string;
  lineage_pairs?: Array<[string, string]>;
}

export interface CaseResult {
  id: string;
  recall: number | null;
  missing: string[];
  safetyFound: number;
  safetyExpected: number;
  missingSafety: string[];
  cited: string[];
  citedRelevant: number;
  judgeScore: number;
}

export interface EvalReport {
  k: number;
  cases: CaseResult[];
  recallAtK: number;
  safetyRecall: number;
  citationPrecision: number;
  judge: { min: number; median: number; max: number };
}

export function readGold(file: string): GoldSet {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as GoldSet;
}

/** The MKU ids an extractive answer cites (`[mku_…]`). */
export function citedIds(answer: string | null | undefined): string[] {
  return [...new Set([...(answer ?? '').matchAll(/\[(mku_[^\]\s]+)\]/g)].map((m) => m[1]))];
}

export async function evaluateGold(deps: PipelineDeps, gold: GoldSet): Promise<EvalReport> {
  const cases: CaseResult[] = [];
  for (const c of gold.cases) {
    const out = await runContext(deps, { query: c.query, patient_ehr: c.patient_ehr, opts: { mode: c.mode ?? 'full', agent_enabled: true } });
    const topK = new Set(out.mkus.slice(0, gold.k).map((m) => m.id));
    const missing = c.expected_mkus.filter((id) => !topK.has(id));
    const swept = new Set(out.safety_items);
    const missingSafety = c.expected_safety_items.filter((id) => !swept.has(id));
    const relevant = new Set([...c.expected_mkus, ...c.expected_safety_items]);
    const cited = c.expected_mkus.length ? citedIds(out.answer) : [];
    cases.push({
      id: c.id,
      recall: c.expected_mkus.length ? (c.expected_mkus.length - missing.length) / c.expected_mkus.length : null,
      missing,
      safetyFound: c.expected_safety_items.length - missingSafety.length,
      safetyExpected: c.expected_safety_items.length,
      missingSafety,
      cited,
      citedRelevant: cited.filter((id) => relevant.has(id)).length,
      judgeScore: out.trace.judge_score,
    });
  }
  const recalls = cases.map((c) => c.recall).filter((r): r is number => r !== null);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const scores = cases.map((c) => c.judgeScore).sort((a, b) => a - b);
  const safetyExpected = sum(cases.map((c) => c.safetyExpected));
  const citedTotal = sum(cases.map((c) => c.cited.length));
  return {
    k: gold.k,
    cases,
    recallAtK: recalls.length ? sum(recalls) / recalls.length : 1,
    safetyRecall: safetyExpected ? sum(cases.map((c) => c.safetyFound)) / safetyExpected : 1,
    citationPrecision: citedTotal ? sum(cases.map((c) => c.citedRelevant)) / citedTotal : 1,
    judge: { min: scores[0] ?? 0, median: scores[Math.floor(scores.length / 2)] ?? 0, max: scores[scores.length - 1] ?? 0 },
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

export function formatEvalReport(r: EvalReport, label: string): string {
  const lines = [`knowledge eval (${label}): ${r.cases.length} cases, k = ${r.k}`];
  for (const c of r.cases) {
    const recall = c.recall === null ? '   -  ' : pct(c.recall).padStart(7);
    const safety = c.safetyExpected ? `${c.safetyFound}/${c.safetyExpected}` : '-';
    lines.push(`  ${c.id.padEnd(26)} recall@${r.k} ${recall}  safety ${safety.padEnd(4)} cited ${c.citedRelevant}/${c.cited.length}  judge ${c.judgeScore.toFixed(3)}${c.missing.length ? `  missing ${c.missing.join(',')}` : ''}${c.missingSafety.length ? `  MISSING SAFETY ${c.missingSafety.join(',')}` : ''}`);
  }
  lines.push(`  MKU recall@${r.k}       ${pct(r.recallAtK)}`, `  safety recall       ${pct(r.safetyRecall)} (100 % required)`, `  citation precision  ${pct(r.citationPrecision)}`, `  judge score         min ${r.judge.min.toFixed(3)}  median ${r.judge.median.toFixed(3)}  max ${r.judge.max.toFixed(3)}`);
  return lines.join('\n');
}
