/**
 * `policies.confidence: findings` (§7.8 Target): shipped levels are withheld (`level: null`) until
 * they are calibrated against judged runs; instead each section lists what the checks found as
 * `{check, where, status, says}`. Findings are read from the same issues and marks that drive the
 * levels, so the two modes can never tell different stories.
 */
import type { EnvelopeConfidence, ShippedConfidence } from '../answer';
import type { TurnState } from './types';

export interface Finding {
  check: 'date' | 'review' | 'citation' | 'record' | 'agreement';
  where: 'answer' | number;
  status: string;
  says: string;
}

const ISSUE_CHECK: Record<string, Finding['check']> = {
  answer_review: 'review',
  answer_review_unavailable: 'review',
  review_doubt: 'review',
  review_set_aside: 'review',
  substance_gate: 'review',
  citation_grounding: 'citation',
  citation_grounding_unavailable: 'citation',
  citation_not_addressed: 'citation',
  citation_scope: 'citation',
  citation_format: 'citation',
  table_contract: 'citation',
  citation_resolution: 'record',
  agreement: 'agreement',
  agreement_unavailable: 'agreement',
};

const MARK_CHECK: Record<string, Finding['check']> = {
  review: 'review',
  citation_format: 'citation',
  citation_grounding: 'citation',
  citation_unchecked: 'citation',
  citation_outside_chart: 'record',
};

/** Answer findings: every non-pass issue, temporal checks as `date`. */
export function answerFindings(turn: TurnState): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const issue of turn.validation.issues) {
    const id = String(issue.id ?? '');
    const status = issue.resolved_by ? 'resolved' : String(issue.status ?? 'info');
    const finding: Finding = { check: ISSUE_CHECK[id] ?? 'date', where: 'answer', status, says: String(issue.reason ?? issue.fix ?? '') };
    const key = JSON.stringify(finding);
    if (!seen.has(key)) out.push(finding);
    seen.add(key);
  }
  return out;
}

/** In-Depth findings: one per mark, where = the point's number; an unavailable review is a finding too. */
export function inDepthFindings(turn: TurnState): Finding[] {
  const marks = turn.answer.inDepth?.validation?.marked ?? [];
  const out: Finding[] = marks.map((m) => ({ check: MARK_CHECK[m.check] ?? 'date', where: m.claim_index, status: m.level === 'red' ? 'fail' : 'warn', says: m.note }));
  if (turn.review.inDepth?.status === 'unavailable') out.push({ check: 'review', where: 'answer', status: 'warn', says: 'The In-Depth review was unavailable.' });
  const error = String(turn.answer.inDepth?.error ?? '');
  if (error) out.push({ check: 'review', where: 'answer', status: 'fail', says: error });
  return out;
}

/** The shipped `confidence` object: graded levels, or level-free findings. */
export function shippedConfidence(turn: TurnState): EnvelopeConfidence {
  if (turn.profile.policies.confidence !== 'findings') return turn.answer.confidence;
  const out: EnvelopeConfidence = { answer: { level: null, note: turn.answer.confidence.answer.note, findings: answerFindings(turn) } };
  if (turn.answer.confidence.in_depth) out.in_depth = { level: null, note: turn.answer.confidence.in_depth.note, findings: inDepthFindings(turn) };
  return out;
}

/** A settled-by-failure confidence (late failure, fallback) in the profile's mode: the failure is the finding. */
export function failureConfidence(turn: TurnState, confidence: EnvelopeConfidence): EnvelopeConfidence {
  if (turn.profile.policies.confidence !== 'findings') return confidence;
  const settled = (c: { note: string }, earlier: Finding[]): ShippedConfidence => ({ level: null, note: c.note, findings: [...earlier, { check: 'review', where: 'answer', status: 'fail', says: c.note }] });
  const out: EnvelopeConfidence = { answer: settled(confidence.answer, answerFindings(turn)) };
  if (confidence.in_depth) out.in_depth = settled(confidence.in_depth, []);
  return out;
}
