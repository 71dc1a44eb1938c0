/**
 * `agree` stage (§7.9): a second writer of another family answers the same question from the same
 * context, independently. The shown Answer stays the first writer's; each of its sentences is
 * checked against the second answer with the same facts-first check as citations. A sentence the
 * second writer states differently is a fail issue and a finding; one it does not state is an info note.
 */
import { normaliseClaim, runFactChecks, type FactCheckResult } from '../../checks/grounding';
import { parseAnswer } from '../answer-parse';
import { callChecker } from '../checker';
import { escalateAnswer } from '../confidence';
import { productValidation } from '../envelope';
import { MAX_CHECKED_STATEMENTS, factCheckIO } from '../grounding';
import { splitSentences } from '../references';
import { isSubstantive } from '../substance';
import { recordStep } from '../steps';
import type { Agreement, AgreementClaim, AgreementClaimStatus } from '../../answer';
import { noteAgreement } from '../slices/review';
import { raiseIssues, settleAnswerValidation } from '../slices/validation';
import type { EngineDeps, Stage, TurnState } from '../types';
import { answerRequest } from './answer';
import { promptLayout } from '../fit';
import { stableEvent } from './resolve-refs';

const AGREEMENT_PREFACE =
  'In this check the SOURCE of every pair is a second, independent answer to the same question about this patient (not a chart record). Judge each STATEMENT against that second answer only.';

const CLAIM_STATUS: Record<FactCheckResult['support'], AgreementClaimStatus> = { supported: 'agreed', contradicted: 'differs', not_addressed: 'unverified', unchecked: 'unchecked' };

export function agreementStatus(claims: readonly AgreementClaim[]): Agreement['status'] {
  if (claims.length === 0 || claims.every((c) => c.status === 'unchecked')) return 'unchecked';
  if (claims.some((c) => c.status === 'differs')) return 'differs';
  if (claims.every((c) => c.status === 'agreed')) return 'agreed';
  return 'partly';
}

async function checkAgreement(turn: TurnState, deps: EngineDeps): Promise<Agreement> {
  const model = turn.profile.models.second!;
  const sentences = splitSentences(turn.answer.draft!.answer).map(normaliseClaim).filter((s) => /[\p{L}\p{N}]/u.test(s));
  // Sentences past the checker bound stay `unchecked` (a runaway Answer must not mean thousands of calls).
  const checkable = sentences.slice(0, MAX_CHECKED_STATEMENTS);
  const body = answerRequest(turn, deps, turn.context.contextMessage, turn.context.conversation, await promptLayout(turn, deps, model), 'second');
  const outcome = await callChecker(turn, deps, 'agree', body);
  const second = outcome.ok ? parseAnswer(outcome.result.content) : null;
  const usable = second !== null && second.structured && isSubstantive(second.answer);
  recordStep(turn, { role: 'second_writer', model, usable, error: outcome.ok ? null : outcome.error, prompt_tokens: outcome.ok ? outcome.result.usage.prompt_tokens : null });

  let results: FactCheckResult[] = sentences.map(() => ({ support: 'unchecked', facts: null, batch: null }));
  if (usable) {
    const instructions = `${AGREEMENT_PREFACE}\n\n${deps.catalog.readPrompt(turn.profile.prompts.grounding ?? 'grounding-facts')}`;
    const sources = `[second answer] ${normaliseClaim(second.answer)}`;
    const items = checkable.map((statement) => ({ statement, sources }));
    const run = await runFactChecks(items, factCheckIO(turn, deps, 'agreement', instructions), { signal: turn.signal });
    results = [...run.results, ...results.slice(run.results.length)];
    recordStep(turn, { role: 'agreement_check', claims: sentences.length, batches: run.batches });
  }
  const claims: AgreementClaim[] = sentences.map((claim, i) => {
    const status = CLAIM_STATUS[results[i].support];
    const says = (results[i].facts ?? []).filter((f) => f.status === 'differs' && f.source_says.trim() !== '').map((f) => f.source_says);
    return status === 'differs' ? { claim_index: i + 1, claim, status, other_says: says } : { claim_index: i + 1, claim, status };
  });
  return {
    model,
    answer: usable ? second.answer : '',
    status: agreementStatus(claims),
    claims,
    // The second writer's view of the claims it states differently, and the claims it does not state.
    other: claims.filter((c) => c.status === 'differs').map((c) => ({ claim_index: c.claim_index, says: c.other_says ?? [] })),
    not_stated: claims.filter((c) => c.status === 'unverified').map((c) => c.claim_index),
  };
}

function agreementIssues(agreement: Agreement): Array<Record<string, unknown>> {
  const model = String(agreement.model);
  if (agreement.status === 'unchecked') {
    return [{ id: 'agreement_unavailable', status: 'warn', severity: 'warn', reason: `The second writer (${model}) could not be compared with this answer.` }];
  }
  return agreement.claims.flatMap((c): Array<Record<string, unknown>> => {
    if (c.status === 'differs') {
      const says = c.other_says?.length ? `: ${c.other_says.join('; ')}` : '';
      return [{ id: 'agreement', status: 'fail', severity: 'warn', claim: c.claim, reason: `The second writer (${model}) states this differently${says}.` }];
    }
    if (c.status === 'unverified') return [{ id: 'agreement', status: 'info', severity: 'info', claim: c.claim, reason: `The second writer (${model}) does not state this.` }];
    return [];
  });
}

export const agreeStage: Stage = {
  name: 'agree',
  async *run(turn, deps) {
    if (turn.answer.draft && isSubstantive(turn.answer.draft.answer)) {
      const agreement = await checkAgreement(turn, deps);
      noteAgreement(turn, agreement);
      const issues = agreementIssues(agreement);
      raiseIssues(turn, issues);
      const differs = issues.find((i) => i.id === 'agreement' && i.status === 'fail');
      if (differs) escalateAnswer(turn, 'yellow', `A second writer states part of this answer differently: ${differs.claim}`);
      else if (agreement.status === 'unchecked') escalateAnswer(turn, 'yellow', 'The second-writer agreement check could not be completed.');
    }
    settleAnswerValidation(turn, productValidation(turn, 'final'));
    yield stableEvent(turn, 'answer_validation');
  },
};
