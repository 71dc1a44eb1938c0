/** Confidence (§7.8): escalation only ever raises the colour; each raise adds its note. */
import type { ConfidenceLevel } from '../answer';
import { settleAnswerConfidence } from './slices/answer';
import type { TurnState } from './types';

const RANK = { green: 0, yellow: 1, red: 2 } as const;

export function escalate(current: ConfidenceLevel, level: ConfidenceLevel['level'], note: string): ConfidenceLevel {
  const notes = [current.note, note].filter((n) => n.trim() !== '');
  return { ...current, level: RANK[level] > RANK[current.level] ? level : current.level, note: [...new Set(notes)].join(' ') };
}

export function escalateAnswer(turn: TurnState, level: ConfidenceLevel['level'], note: string): void {
  settleAnswerConfidence(turn, escalate(turn.answer.confidence.answer, level, note));
}

/** The temporal gate's effect on the Answer's confidence (§6.3 "Confidence merge"). */
export function mergeGateConfidence(turn: TurnState): void {
  const gate = turn.validation.temporalGate;
  if (!gate) return;
  const firstFail = gate.checks.find((c) => c.status === 'fail');
  if (firstFail && gate.applied === 'patch') escalateAnswer(turn, 'yellow', `Deterministic temporal gate corrected the answer before validation: ${firstFail.reason}`);
  else if (firstFail && gate.applied === 'fallback') escalateAnswer(turn, 'red', `Deterministic temporal gate blocked the draft answer: ${firstFail.reason}`);
  else if (firstFail) escalateAnswer(turn, 'red', `Deterministic temporal gate found a contradiction: ${firstFail.reason}`);
  else if (gate.status === 'warn') escalateAnswer(turn, 'yellow', `Deterministic temporal gate warning: ${gate.checks.find((c) => c.status === 'warn')?.reason ?? ''}`.trim());
}

/** Blocking contract issues (tables withheld, citation scope) make the Answer red. */
export function mergeContractConfidence(turn: TurnState, issues: ReadonlyArray<Record<string, unknown>>): void {
  for (const issue of issues) {
    if (issue.status === 'fail' && issue.severity === 'block') escalateAnswer(turn, 'red', String(issue.reason ?? 'A citation or table check failed.'));
  }
}
