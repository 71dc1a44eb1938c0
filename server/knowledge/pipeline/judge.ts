/**
 * Stage 5, the sufficiency judge (§1.3, §6.3). The deterministic proxy (the default, and what runs whenever
 * no model is configured) combines query-concept coverage and the top cosine into a 0–1 score:
 * `0.5·coverage + 0.5·min(1, top cosine)`, where coverage is the share of query concepts that reach at
 * least one retained MKU. The score is always reported; below the cutoff the raw-chunk fallback runs.
 */
import { round } from './rank';

export interface JudgeInput {
  queryConceptIds: string[];
  retained: Array<{ queryConcepts: Set<string>; cosine: number }>;
}

export interface JudgeVerdict {
  score: number;
  rationale: string;
}

export function proxyJudge(input: JudgeInput): JudgeVerdict {
  const covered = new Set<string>();
  let top = 0;
  for (const r of input.retained) {
    for (const id of r.queryConcepts) if (input.queryConceptIds.includes(id)) covered.add(id);
    top = Math.max(top, r.cosine);
  }
  const coverage = input.queryConceptIds.length ? covered.size / input.queryConceptIds.length : 0;
  const cos = Math.min(1, Math.max(0, top));
  const score = round(0.5 * coverage + 0.5 * cos);
  return { score, rationale: `proxy: coverage ${covered.size}/${input.queryConceptIds.length} query concepts, top cosine ${round(cos)}` };
}
