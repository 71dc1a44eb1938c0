/**
 * `indepth_gate` stage: every drafted claim is checked on its own words (temporal checks, citation
 * format, records outside the chart) and a questioned claim is MARKED with a short note, never
 * removed (decision 9). Claim references merge into the final `references`. An honest empty claim
 * list is a complete, empty In-Depth (§13.1 #8).
 */
import { runInDepthGate, type InDepthGateResult } from '../../checks/temporal/indepth-gate';
import { escalate } from '../confidence';
import { citationsFromReferences, claimUsages, mergeReferences, resolveReferences, type Reference } from '../references';
import type { ConfidenceLevel, Stage, TurnState } from '../types';
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

function citationChecks(claims: readonly string[], refs: readonly Reference[], gate: InDepthGateResult) {
  return claims.map((claim, i) => {
    const cited = claimUsages([claim], 'indepth');
    const failed = gate.marked.some((m) => m.claim_index === i + 1 && m.level === 'red');
    if (cited.size === 0) return { claim_index: i + 1, status: 'info', reason: 'Uncited: general guidance, not a statement about this chart.' };
    const unresolved = [...cited.keys()].some((n) => refs.find((r) => r.index === n)?.resolutionStatus !== 'resolved');
    if (unresolved || failed) return { claim_index: i + 1, status: 'fail', reason: 'A check questioned this claim; see its note.' };
    return { claim_index: i + 1, status: 'pass', reason: 'Cited records resolved in the chart.' };
  });
}

function inDepthConfidence(claims: readonly string[], gate: InDepthGateResult): ConfidenceLevel {
  const markedClaims = new Set(gate.marked.map((m) => m.claim_index));
  const base: ConfidenceLevel = { level: 'green', note: '' };
  if (claims.length > 0 && markedClaims.size === claims.length) return escalate(base, 'red', 'Every In-Depth point was questioned by the checks.');
  if (markedClaims.size > 0) return escalate(base, 'yellow', 'Some In-Depth points were questioned by the checks; see their notes.');
  return base;
}

function settleError(turn: TurnState): void {
  const error = String(turn.inDepth?.error ?? 'In-Depth was not generated.');
  turn.confidence.in_depth = { level: 'red', note: error };
}

export const inDepthGateStage: Stage = {
  name: 'indepth_gate',
  async *run(turn) {
    const drafted = turn.inDepthClaims;
    if (drafted === null || !turn.ledger) {
      settleError(turn);
      yield stableEvent(turn, 'indepth_error');
      return;
    }
    const gate = runInDepthGate({ claims: drafted, facts: turn.facts, mode: turn.temporal.mode, ledgerSize: turn.ledger.records.length });
    const grounding = turn.profile.policies.review !== null && turn.profile.policies.review.grounding !== 'off' ? 'checking' : 'unchecked';
    const claimRefs = resolveReferences(claimUsages(gate.claims, 'indepth'), turn.ledger, grounding);
    // A claim citing a record outside the chart is marked; its index never becomes a reference (§12).
    turn.references = mergeReferences(turn.references, claimRefs.filter((r) => r.resolutionStatus === 'resolved'));
    const inDepth: Record<string, unknown> = {
      status: 'complete',
      answer: renderClaims(gate.claims, gate),
      error: '',
      validation: { ...gate, citation_checks: citationChecks(gate.claims, claimRefs, gate) },
    };
    if (gate.claims.join('\n') !== drafted.join('\n')) {
      // A safe repair changed a claim: the first draft stays inspectable (§3.5).
      inDepth.reviewDraft = drafted.map((c) => `- ${c}`).join('\n');
      inDepth.reviewReferences = resolveReferences(claimUsages(drafted, 'indepth_review_draft'), turn.ledger, 'unchecked');
    }
    turn.inDepth = inDepth;
    turn.confidence.in_depth = inDepthConfidence(gate.claims, gate);
    turn.steps.push({ role: 'indepth', claims: gate.claims.length, marked: gate.marked.length, citations: citationsFromReferences(claimRefs).length });
    yield stableEvent(turn, 'indepth_done');
  },
};
