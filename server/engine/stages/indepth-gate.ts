/**
 * `indepth_gate` stage: every drafted claim is checked on its own words (temporal checks, citation
 * format, records outside the chart) and a questioned claim is MARKED with a short note, never
 * removed (decision 9). Claim references merge into the final `references`. An honest empty claim
 * list is a complete, empty In-Depth (§13.1 #8).
 */
import { normaliseClaim } from '../../checks/grounding';
import { inDepthGateSteps, type InDepthGateResult, type InDepthMark } from '../../checks/temporal';
import { LoopSlice, stepsInSlices } from '../../event-loop';
import { groundClaims } from '../grounding';
import { escalate } from '../confidence';
import { citationsFromReferences, mergeReferences, type Reference, type ConfidenceLevel } from '../../answer';
import { claimUsages, resolveReferences } from '../references';
import { recordStep } from '../steps';
import { adoptReferences, settleInDepth, settleInDepthConfidence, type InDepthSection, type InDepthValidation } from '../slices/answer';
import type { ReviewSlice } from '../slices/review';
import type { EngineDeps, Stage, TurnState } from '../types';
import { stableEvent } from './resolve-refs';

/** Markdown bullets; a marked claim keeps its text and gets its notes as a nested bullet. */
export function renderClaims(claims: readonly string[], gate: InDepthGateResult): string {
  return claims
    .map((claim, i) => {
      const notes = gate.marked.filter((m) => m.claim_index === i + 1).map((m) => m.note);
      return [`- ${claim}`, ...notes.map((n) => `  - Check: ${n}`)].join('\n');
    })
    .join('\n');
}

type ClaimGrounding = Map<number, Array<'supported' | 'contradicted' | 'not_addressed' | 'unchecked'>>;

function citationChecks(claims: readonly string[], refs: readonly Reference[], marks: readonly InDepthMark[], grounding: ClaimGrounding) {
  return claims.map((claim, i) => {
    const n = i + 1;
    const cited = claimUsages([claim], 'indepth');
    if (cited.size === 0) return { claim_index: n, status: 'info', reason: 'Uncited: general guidance, not a statement about this chart.' };
    const unresolved = [...cited.keys()].some((k) => refs.find((r) => r.index === k)?.resolutionStatus !== 'resolved');
    const supports = grounding.get(n) ?? [];
    if (unresolved || marks.some((m) => m.claim_index === n && m.level === 'red')) return { claim_index: n, status: 'fail', reason: 'A check questioned this claim; see its note.' };
    if (supports.includes('unchecked')) return { claim_index: n, status: 'warn', reason: 'A cited record could not be checked against this claim.' };
    if (supports.includes('not_addressed')) return { claim_index: n, status: 'not_addressed', reason: 'The cited record does not address every fact of this claim.' };
    return { claim_index: n, status: 'pass', reason: supports.length ? 'Cited records support this claim.' : 'Cited records resolved in the chart.' };
  });
}

function inDepthConfidence(claims: readonly string[], marks: readonly InDepthMark[], review: ReviewSlice['inDepth']): ConfidenceLevel {
  const markedClaims = new Set(marks.map((m) => m.claim_index));
  let level: ConfidenceLevel = { level: 'green', note: '' };
  // Red only when every point is questioned; some questioned points make the section yellow (§7.7 Target).
  if (claims.length > 0 && markedClaims.size === claims.length) level = escalate(level, 'red', 'Every In-Depth point was questioned by the checks.');
  else if (markedClaims.size > 0) level = escalate(level, 'yellow', 'Some In-Depth points were questioned by the checks; see their notes.');
  if (review?.status === 'unavailable') level = escalate(level, 'yellow', 'The In-Depth review was unavailable; the points are shown unreviewed.');
  return level;
}

/** The reviewer's flags as yellow marks carrying its note. */
function reviewMarks(review: ReviewSlice['inDepth'], claimCount: number): InDepthMark[] {
  if (!review) return [];
  return [...review.notes]
    .filter(([n]) => n >= 1 && n <= claimCount)
    .map(([n, note]) => ({ claim_index: n, check: 'review', level: 'yellow' as const, note: `Review: ${note}` }));
}

/** Grounds the claims' citations; a contradiction is a red mark naming what the record states, an unchecked one a yellow mark. */
async function groundInDepth(turn: TurnState, deps: EngineDeps, claims: readonly string[], refs: Reference[]): Promise<{ refs: Reference[]; marks: InDepthMark[]; grounding: ClaimGrounding }> {
  const grounded = await groundClaims(turn, deps, refs, { locations: ['indepth'], stage: 'indepth_grounding', useFolded: false, passingChecks: [] });
  const normalised = claims.map((c) => normaliseClaim(c));
  const marks: InDepthMark[] = [];
  const grounding: ClaimGrounding = new Map();
  for (const { pair, check } of grounded.checked) {
    const at = normalised.findIndex((c) => c.includes(pair.claim));
    if (at < 0) continue;
    const n = at + 1;
    grounding.set(n, [...(grounding.get(n) ?? []), check.support]);
    const cites = pair.sourceIndices.map((i) => `[${i}]`).join('');
    if (check.support === 'contradicted') {
      const says = (check.record_says ?? []).filter((s) => s.trim() !== '');
      marks.push({ claim_index: n, check: 'citation_grounding', level: 'red', note: says.length ? `Citation check: ${cites} states ${says.join('; ')}.` : `Citation check: ${cites} does not support this point.` });
    } else if (check.support === 'unchecked') {
      marks.push({ claim_index: n, check: 'citation_unchecked', level: 'yellow', note: `Citation check: ${cites} could not be checked against this point.` });
    }
  }
  return { refs: grounded.references, marks, grounding };
}

/** Any marked point needs the clinician's look; otherwise the temporal gate's own status stands. */
function validationStatus(gate: InDepthGateResult, marks: readonly InDepthMark[]): InDepthGateResult['status'] {
  return marks.length > 0 ? 'needs_review' : gate.status;
}

function settleError(turn: TurnState): void {
  const error = String(turn.answer.inDepth?.error ?? 'In-Depth was not generated.');
  settleInDepthConfidence(turn, { level: 'red', note: error });
}

export const inDepthGateStage: Stage = {
  name: 'indepth_gate',
  async *run(turn, deps) {
    const drafted = turn.answer.inDepthClaims;
    if (drafted === null || !turn.context.ledger) {
      settleError(turn);
      yield stableEvent(turn, 'indepth_error');
      return;
    }
    // runInDepthGate's result, the loop given back between claims once they have held it for a slice.
    const gate = await stepsInSlices(inDepthGateSteps({ claims: [...drafted], facts: turn.context.facts, mode: turn.temporal.mode, ledgerSize: turn.context.ledger.records.length }), new LoopSlice());
    const policy = turn.profile.policies.review;
    const grounds = policy !== null && policy.grounding !== 'off' && turn.profile.stages.includes('ground_verdicts');
    let claimRefs = resolveReferences(claimUsages(gate.claims, 'indepth'), turn.context.ledger, grounds ? 'checking' : 'unchecked');
    let marks: InDepthMark[] = [...gate.marked, ...reviewMarks(turn.review.inDepth, gate.claims.length)];
    let grounding: ClaimGrounding = new Map();
    if (grounds) {
      const grounded = await groundInDepth(turn, deps, gate.claims, claimRefs);
      claimRefs = grounded.refs;
      marks = [...marks, ...grounded.marks];
      grounding = grounded.grounding;
    }
    // A claim citing a record outside the chart is marked; its index never becomes a reference (§12).
    adoptReferences(turn, mergeReferences(turn.answer.references, claimRefs.filter((r) => r.resolutionStatus === 'resolved')));
    const marked = { ...gate, marked: marks };
    const validation: InDepthValidation = { ...gate, status: validationStatus(gate, marks), marked: marks, citation_checks: citationChecks(gate.claims, claimRefs, marks, grounding) };
    if (turn.review.inDepth) validation.review_status = turn.review.inDepth.status;
    const inDepth: InDepthSection = {
      status: 'complete',
      answer: renderClaims(gate.claims, marked),
      error: '',
      validation,
    };
    if (gate.claims.join('\n') !== drafted.join('\n')) {
      // A safe repair changed a claim: the first draft stays inspectable (§3.5).
      inDepth.reviewDraft = drafted.map((c) => `- ${c}`).join('\n');
      inDepth.reviewReferences = resolveReferences(claimUsages(drafted, 'indepth_review_draft'), turn.context.ledger, 'unchecked');
    }
    settleInDepth(turn, inDepth);
    settleInDepthConfidence(turn, inDepthConfidence(gate.claims, marks, turn.review.inDepth));
    recordStep(turn, { role: 'indepth', claims: gate.claims.length, marked: marks.length, citations: citationsFromReferences(claimRefs).length });
    yield stableEvent(turn, 'indepth_done');
  },
};
