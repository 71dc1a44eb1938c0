/**
 * The trace line of one turn (§11.2 fields the hub has so far), for completed, failed and cancelled
 * turns alike. Built from the turn state only; the writer sanitises secrets and URLs.
 */
import type { EngineEvent } from '../answer';
import type { Profile } from '../profiles';

export type TurnOutcome =
  | { status: 'completed' }
  | { status: 'failed'; code: string }
  | { status: 'cancelled' };

/**
 * What the trace reads of a turn, stated here so the trace (a lower floor) never imports the engine:
 * the engine's turn satisfies it. Parts the trace only serialises are `unknown`.
 */
export interface TracedTurn {
  requestId: string;
  profile: Pick<Profile, 'id' | 'lowLevelLeg' | 'models'>;
  request: { model: string; context?: Record<string, unknown> | null };
  context: { question: string; summary: unknown };
  answer: { draft: { answer: string } | null };
  validation: { temporalGate: unknown };
  accounting: {
    usage: unknown;
    tokens: { stats(): unknown } | null;
    budgets: unknown;
    prefixShares: unknown;
    promptEvaluation: { stages: readonly unknown[] };
    slots: unknown;
  };
  outcome: { stages: ReadonlyArray<{ stage: string; status: string }> };
  steps: ReadonlyArray<{ role: string; [key: string]: unknown }>;
}

/** How a staged stream's terminal event ends the turn; null for the events before it. */
export function outcomeOfEvent(event: EngineEvent): TurnOutcome | null {
  if (event.name === 'done') return { status: 'completed' };
  if (event.name === 'error') return { status: 'failed', code: event.data.code };
  return null;
}

const QUESTION_LIMIT = 2000;

/** `context.session` / `request_id` / `message_id`, stringified, non-blank scalars only. */
export function correlation(context: Record<string, unknown> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['session', 'request_id', 'message_id']) {
    const v = context?.[key];
    if ((typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') && String(v).trim() !== '') out[key] = String(v);
  }
  return out;
}

/** The stage that was running when the turn stopped early (its timing is not `completed`). */
function stoppedAt(turn: TracedTurn): string | null {
  const stages = turn.outcome.stages;
  for (let i = stages.length - 1; i >= 0; i--) if (stages[i].status !== 'completed') return stages[i].stage;
  return null;
}

export function turnTrace(turn: TracedTurn, outcome: TurnOutcome, extra: { hubRevision: string; queueWaitMs?: number }): Record<string, unknown> {
  const { profile } = turn;
  return {
    ts: new Date().toISOString(),
    level_id: turn.request.model,
    profile_id: profile.lowLevelLeg ? null : profile.id,
    request_id: turn.requestId,
    question: turn.context.question.slice(0, QUESTION_LIMIT),
    correlation: correlation(turn.request.context),
    hub_revision: extra.hubRevision,
    models: {
      // Team profiles' gather models (§11.2); null on other plans.
      orchestrator: profile.models.orchestrator ?? null,
      expert: profile.models.expert ?? null,
      synthesizer: profile.models.answer ?? profile.models.indepth ?? null,
      validator: profile.models.review ?? null,
    },
    outcome: { ...outcome, stopped_at: outcome.status === 'completed' ? null : stoppedAt(turn) },
    answer_text: turn.answer.draft?.answer ?? null,
    temporal_gate: turn.validation.temporalGate,
    context: turn.context.summary,
    usage: turn.accounting.usage,
    exact_request_budgets: turn.accounting.tokens ? { measurements: turn.accounting.budgets, token_counter: turn.accounting.tokens.stats() } : null,
    prefix_share: turn.accounting.prefixShares,
    prompt_evaluation: turn.accounting.promptEvaluation.stages.length > 0 ? turn.accounting.promptEvaluation : null,
    router_slot_evidence: turn.accounting.slots,
    steps: turn.steps,
  };
}
