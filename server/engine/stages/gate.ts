/**
 * `gate` stage (§4.4). First occurrence: product table and citation contracts, then the temporal
 * gate on the Answer (prose plus table rows); `enforce` applies the patch or the fallback sentence,
 * `warn` only reports, `off` is `not_applicable`. The writer's first draft is kept whenever a check
 * changes it. A later occurrence re-gates only an Answer that review changed (review labels only,
 * so today it records that nothing changed).
 */
import { runContractGate } from '../../checks/contracts';
import { applyTemporalGate, temporalGateSteps } from '../../checks/temporal';
import { LoopSlice, SLICE_ABOVE_CHARS, stepsInSlices, YIELD_ABOVE_RECORDS, yieldToLoop } from '../../event-loop';
import { mergeContractConfidence, mergeGateConfidence } from '../confidence';
import type { AnswerDraft, TableBlock } from '../../answer';
import { recordStep } from '../steps';
import { settleCheckedDraft } from '../slices/answer';
import { raiseIssues, recordTemporalGate } from '../slices/validation';
import type { Stage, TurnState } from '../types';

/** The gate reads tables too: each row as `cell | cell | …` after the prose (§6.3). */
export function gateText(draft: Pick<AnswerDraft, 'answer' | 'blocks'>): string {
  const rows = draft.blocks.flatMap((b: TableBlock) => b.rows.map((r) => b.columns.map((c) => r.cells[c.key]?.text ?? '').join(' | ')));
  return [draft.answer, ...rows].filter((s) => s.trim() !== '').join('\n');
}

function snapshot(draft: AnswerDraft): AnswerDraft {
  // structuredClone costs microseconds even for an empty list, and most Answers (every leg's) have no table.
  return { ...draft, citations: [...draft.citations], declared: [...draft.declared], blocks: draft.blocks.length === 0 ? [] : structuredClone(draft.blocks), rawBlocks: draft.rawBlocks };
}

function runContracts(turn: TurnState, draft: AnswerDraft): { draft: AnswerDraft; changed: boolean } {
  const result = runContractGate({ ...draft, blocks: draft.rawBlocks as TableBlock[] });
  raiseIssues(turn, result.issues);
  mergeContractConfidence(turn, result.issues);
  recordStep(turn, { role: 'table_contract', blocks_withheld: result.blocksWithheld, issues: result.issues.length });
  return { draft: { ...result.draft, declared: draft.declared, rawBlocks: result.draft.blocks, structured: draft.structured }, changed: result.changed };
}

/** A gate over this much text, or over the facts of this large a chart, starts on a fresh loop turn. */
function isLargeGate(turn: TurnState, answer: string): boolean {
  return answer.length + turn.context.question.length > SLICE_ABOVE_CHARS || (turn.context.facts?.date_ledger.length ?? 0) > YIELD_ABOVE_RECORDS;
}

async function runTemporal(turn: TurnState, draft: AnswerDraft): Promise<{ draft: AnswerDraft; changed: boolean }> {
  const input = { question: turn.context.question, answer: gateText(draft), citations: draft.citations, facts: turn.context.facts, mode: turn.temporal.mode };
  // runTemporalGate's result, giving the loop back between checks once they have held it for a slice.
  const result = await stepsInSlices(temporalGateSteps(input), new LoopSlice());
  const applied = applyTemporalGate(result, { answer: draft.answer, citations: draft.citations, blocks: draft.blocks });
  // A failure the patch corrected stays listed (the draft had it) but no longer blocks the Answer.
  const patched = applied.applied === 'patch';
  raiseIssues(turn, result.checks.filter((c) => c.status !== 'pass').map((c) => (patched && c.status === 'fail' ? { ...c, resolved_by: 'patch' } : { ...c })));
  recordTemporalGate(turn, { ...result, applied: applied.applied });
  mergeGateConfidence(turn);

  recordStep(turn, { role: 'temporal_gate', mode: result.mode, status: result.status, applied: applied.applied, n_checks: result.checks.length });
  if (!applied.changed) return { draft, changed: false };
  return { draft: { ...draft, answer: applied.answer, citations: applied.citations, blocks: applied.blocks }, changed: true };
}

export const gateStage: Stage = {
  name: 'gate',
  async run(turn) {
    if (!turn.answer.draft) return;
    if (turn.validation.temporalGate !== null) {
      // Later occurrence: review labels and never rewrites (decision 9), so there is nothing to re-gate.
      recordStep(turn, { role: 'temporal_gate', regate: false, reason: 'answer unchanged by review' });
      return;
    }
    const first = snapshot(turn.answer.draft);
    let draft = turn.answer.draft;
    let changed = false;
    if (turn.profile.policies.output === 'product') ({ draft, changed } = runContracts(turn, draft));
    if (isLargeGate(turn, draft.answer)) await yieldToLoop();
    const temporal = await runTemporal(turn, draft);
    settleCheckedDraft(turn, temporal.draft, changed || temporal.changed ? first : null);
  },
};
