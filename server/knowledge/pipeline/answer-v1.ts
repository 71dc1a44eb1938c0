/**
 * `/v1/answer` (§1.2, §6.3): a thin shell over the `/v2/context` retrieval. Sources are the recommendations
 * the answer actually quotes, de-duplicated by `reco_id` (an **int** on this wire, a string in v2: a
 * non-numeric or missing one gets a stable int from the document id); `evidence` stacks group the retained
 * verbatims per document (`year` a **string** here); `steps` record search → rank → answer. When nothing
 * passes the judge the answer is the fixed not-found sentence.
 */
import { createHash } from 'node:crypto';
import { EXTRACTIVE_QUOTES, extractiveAnswer, NOT_FOUND_ANSWER, sourceLabel } from './answer';
import { runContext } from './context';
import type { AnswerRequest, AnswerResponse, AnswerSource, EmitStage, EvidenceSource, MkuResult, PipelineDeps } from './types';

/** Evidence stacks shown at most (display only). */
const EVIDENCE_UNITS = 8;

export function recoIdInt(recoId: string | null, docId: string): number {
  if (recoId !== null && /^\d{1,9}$/.test(recoId)) return Number(recoId);
  // 31 bits of the document id's hash: stable across runs, always a positive int.
  return parseInt(createHash('sha256').update(docId).digest('hex').slice(0, 8), 16) & 0x7fffffff;
}

export function evidenceId(docId: string): string {
  return `src${createHash('sha256').update(docId).digest('hex').slice(0, 10)}`;
}

export function answerSources(mkus: MkuResult[]): AnswerSource[] {
  const seen = new Map<number, AnswerSource>();
  for (const m of mkus) {
    const p = m.provenance;
    if (!p) continue;
    const id = recoIdInt(p.reco_id, p.doc_id);
    if (!seen.has(id)) seen.set(id, { reco_id: id, reco_title: p.doc_title, source_name: p.source_name, deep_link: p.doc_url });
  }
  return [...seen.values()];
}

export function evidenceStacks(mkus: MkuResult[]): EvidenceSource[] {
  const stacks = new Map<string, EvidenceSource>();
  for (const m of mkus) {
    const p = m.provenance;
    if (!p) continue;
    let s = stacks.get(p.doc_id);
    if (!s) {
      const page = p.pages.map((x) => Number.parseInt(x, 10)).find((n) => Number.isInteger(n) && n >= 0);
      s = { id: evidenceId(p.doc_id), org: p.source_org, year: p.year === null ? null : String(p.year), title: p.doc_title, page: page ?? null, url: p.doc_url ?? '', grade: m.evidence_grade, units: [] };
      stacks.set(p.doc_id, s);
    }
    s.units.push({ text: m.verbatim, type: 'extrait' });
  }
  return [...stacks.values()];
}

/**
 * The retained MKUs whose document belongs to an allowed source (`source_ids`; null or empty: every source).
 * Applied to the retrieval's result, so an allow-list narrows what is quoted, never what is ranked.
 */
async function allowedSources(deps: PipelineDeps, mkus: MkuResult[], sourceIds: number[] | null | undefined): Promise<MkuResult[]> {
  if (!sourceIds || sourceIds.length === 0) return mkus;
  const allowed = new Set(sourceIds);
  const provenance = await deps.store.provenance(mkus.map((m) => m.id));
  return mkus.filter((m) => {
    const id = provenance.get(m.id)?.source_id;
    return id !== null && id !== undefined && allowed.has(id);
  });
}

export async function runAnswer(deps: PipelineDeps, req: AnswerRequest, emit: EmitStage = () => {}, signal?: AbortSignal): Promise<AnswerResponse> {
  const ctx = await runContext(deps, { query: req.query, patient_ehr: {} }, emit, signal);
  const kept = await allowedSources(deps, ctx.mkus, req.source_ids);
  const found = ctx.trace.judge_sufficient && kept.length > 0;
  const quoted = found ? kept.slice(0, EXTRACTIVE_QUOTES) : [];
  const answer = found ? extractiveAnswer(quoted.map((m) => ({ id: m.id, verbatim: m.verbatim, source: sourceLabel(m.provenance) }))) : NOT_FOUND_ANSWER;
  return {
    query: req.query,
    reformulated_question: null,
    answer,
    sources: answerSources(quoted),
    steps: [
      { tool: 'search', in: { query: req.query, source_ids: req.source_ids ?? null }, out: { n_units: ctx.trace.counts.union ?? 0, source_filter: req.source_ids?.length ? 'applied' : 'none' } },
      { tool: 'rank', in: { n_units: ctx.trace.counts.union ?? 0 }, out: { n_kept: kept.length, judge_score: ctx.trace.judge_score, judge_sufficient: ctx.trace.judge_sufficient } },
      { tool: 'answer', in: { n_units: quoted.length }, out: { mode: found ? 'extractive' : 'not_found' } },
    ],
    evidence: found ? evidenceStacks(kept.slice(0, EVIDENCE_UNITS)) : [],
    tokens_in: null,
    tokens_out: null,
  };
}
