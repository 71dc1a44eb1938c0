/**
 * `ground_verdicts` stage: facts-first grounding of the Answer's cited statements (§7.5 Target), the
 * issues and confidence that follow from the verdicts, the settled `answerValidation`, and the
 * `answer_validation` event (unless an agreement check still follows; then `agree` emits it).
 */
import type { CheckedPair } from '../grounding';
import { groundClaims } from '../grounding';
import { escalateAnswer } from '../confidence';
import { productValidation } from '../envelope';
import { adoptReferences } from '../slices/answer';
import { raiseIssues, settleAnswerValidation } from '../slices/validation';
import type { Stage, TurnState } from '../types';
import { stableEvent } from './resolve-refs';

function citeList(indices: readonly number[]): string {
  return indices.map((i) => `[${i}]`).join('');
}

/** Issues of the grounded pairs: contradicted ⇒ fail naming what the record states; unchecked ⇒ warn; not_addressed ⇒ info. */
export function groundingIssues(checked: readonly CheckedPair[]): Array<Record<string, unknown>> {
  const issues: Array<Record<string, unknown>> = [];
  for (const { pair, check } of checked) {
    const base = { claim: pair.claim, location: pair.location, path: pair.path, source_indices: [...pair.sourceIndices] };
    const cites = citeList(pair.sourceIndices);
    if (check.support === 'contradicted') {
      const says = (check.record_says ?? []).filter((s) => s.trim() !== '');
      const subject = pair.sourceIndices.length > 1 ? `The cited source set ${cites} did not support this statement` : `Citation ${cites} was not supported by its source record`;
      issues.push({ id: 'citation_grounding', status: 'fail', severity: 'warn', ...base, reason: says.length ? `${subject}: the record states ${says.join('; ')}.` : `${subject}.`, record_says: says });
    } else if (check.support === 'unchecked') {
      issues.push({ id: 'citation_grounding_unavailable', status: 'warn', severity: 'warn', ...base, reason: `Citation ${cites} could not be checked against its source record.` });
    } else if (check.support === 'not_addressed') {
      const missing = (check.facts ?? []).filter((f) => f.status === 'not_found').map((f) => f.fact);
      issues.push({
        id: 'citation_not_addressed',
        status: 'info',
        severity: 'info',
        ...base,
        reason: missing.length ? `The cited record ${cites} does not address: ${missing.join('; ')}.` : `The cited record ${cites} does not address this statement.`,
      });
    }
  }
  return issues;
}

/** Red for a contradiction (naming what the record states), yellow when a citation could not be checked. */
export function mergeGroundingConfidence(turn: TurnState, issues: ReadonlyArray<Record<string, unknown>>): void {
  const first = issues.find((i) => i.id === 'citation_grounding');
  if (first) escalateAnswer(turn, 'red', String(first.reason));
  if (issues.some((i) => i.id === 'citation_grounding_unavailable')) escalateAnswer(turn, 'yellow', 'Some citations could not be checked against their records.');
}

/** Without grounding (policy `off`) resolved references stay `unchecked` with no label (decision 16). */
function leaveUnchecked(turn: TurnState): void {
  adoptReferences(turn, turn.answer.references.map((r) => (r.groundingStatus === 'checking' ? { ...r, groundingStatus: 'unchecked', grounded: null } : r)));
}

export const groundVerdictsStage: Stage = {
  name: 'ground_verdicts',
  async *run(turn, deps) {
    const policy = turn.profile.policies.review;
    if (policy && policy.grounding !== 'off' && turn.answer.draft) {
      const passing = (turn.validation.temporalGate?.checks ?? []).filter((c) => c.status === 'pass');
      const grounded = await groundClaims(turn, deps, turn.answer.references, { locations: ['answer', 'block'], stage: 'grounding', useFolded: policy.grounding === 'folded', passingChecks: passing });
      adoptReferences(turn, grounded.references);
      const issues = groundingIssues(grounded.checked);
      raiseIssues(turn, issues);
      mergeGroundingConfidence(turn, issues);
    } else {
      leaveUnchecked(turn);
    }
    settleAnswerValidation(turn, productValidation(turn, 'final'));
    if (!turn.profile.stages.includes('agree')) yield stableEvent(turn, 'answer_validation');
  },
};
