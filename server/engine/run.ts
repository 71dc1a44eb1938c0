/**
 * The engine: walks the compiled plan stage by stage and yields events. It never looks at a profile
 * id — only at the plan and the policies. Streaming and blocking adapters consume the same events.
 */
import { randomUUID } from 'node:crypto';
import { HubError } from '../errors';
import type { Profile } from '../profiles';
import { productEnvelope } from './envelope';
import { resultEnvelope } from './output';
import { temporalPolicy } from './policy';
import { STAGES } from './stages';
import type { EngineEvent } from '../answer';
import { doneEvent, resultEvent } from './events';
import type { ChatCompletionRequest, EngineDeps, TurnState } from './types';
import { newAccountingSlice } from './slices/accounting';
import { newAnswerSlice } from './slices/answer';
import { newContextSlice } from './slices/context';
import { newOutcomeSlice, recordStageTiming } from './slices/outcome';
import { newReviewSlice } from './slices/review';
import { newValidationSlice } from './slices/validation';
import { newSteps } from './steps';
import { newDrugSafetyTurn } from './slices/drug-safety';
import { newGatherTurn } from './gather/types';
import { newFitTurn } from './slices/fit';
import { errorTypeOf, NOOP_TURN_SPAN, type TurnSpan } from '../telemetry';

/** Stages of the plan the engine cannot run yet. */
export function unrunnableStages(profile: Profile): string[] {
  const missing: string[] = profile.stages.filter((s) => !STAGES[s]);
  if (!['bare', 'product', 'indepth', 'review'].includes(profile.policies.output)) missing.push(`output ${profile.policies.output}`);
  return [...new Set(missing)];
}

/** Refuses, before any model call, a plan this build cannot run honestly. */
export function assertRunnable(profile: Profile): void {
  if (profile.topology === 'caller') {
    // Caller-orchestrated (Catalyst) profiles have no hub-run plan: chat completions is not their route.
    throw new HubError('invalid_request_error', `Profile '${profile.id}' is a caller-orchestrated query profile; it is not answered through chat completions; call its roles at POST /v1/hub/query-profiles/${profile.id}/roles/{role}/generate.`, {
      param: 'model',
      extra: { model: profile.id },
    });
  }
  const missing = unrunnableStages(profile);
  if (missing.length) {
    throw new HubError('stage_not_implemented', `Profile '${profile.id}' needs stages this hub build does not run yet: ${missing.join(', ')}.`, {
      extra: { model: profile.id, stages: missing },
    });
  }
}

export function createTurn(request: ChatCompletionRequest, profile: Profile, signal: AbortSignal, requestId: string = randomUUID(), telemetry: TurnSpan = NOOP_TURN_SPAN): TurnState {
  return {
    requestId,
    profile,
    request,
    signal,
    temporal: temporalPolicy(profile, request.context),
    startedAt: performance.now(),
    telemetry,
    context: newContextSlice(),
    answer: newAnswerSlice(),
    validation: newValidationSlice(),
    review: newReviewSlice(),
    accounting: newAccountingSlice(),
    outcome: newOutcomeSlice(),
    steps: newSteps(),
    drugSafety: newDrugSafetyTurn(),
    gather: newGatherTurn(),
    fit: newFitTurn(),
  };
}

function isAsyncIterable(v: unknown): v is AsyncIterable<EngineEvent> {
  return v !== null && typeof v === 'object' && Symbol.asyncIterator in v;
}

export async function* runTurn(turn: TurnState, deps: EngineDeps): AsyncGenerator<EngineEvent> {
  const occurrences = new Map<string, number>();
  for (const name of turn.profile.stages) {
    const stage = STAGES[name];
    if (!stage) throw new HubError('stage_not_implemented', `Stage '${name}' is not available in this hub build.`);
    const occurrence = (occurrences.get(name) ?? 0) + 1;
    occurrences.set(name, occurrence);
    let elapsed = 0;
    let since = performance.now();
    let status: 'completed' | 'failed' | 'cancelled' = 'completed';
    let errorType: string | null = null;
    // Its span covers the stage's wall time, a consumer's hold on its events included (the timing below does not).
    const span = turn.telemetry.stage(name, occurrence);
    try {
      turn.signal.throwIfAborted();
      const out = stage.run(turn, deps);
      if (isAsyncIterable(out)) {
        for await (const event of out) {
          // The clock stops while the consumer holds the event: its time is never the stage's.
          elapsed += performance.now() - since;
          yield event;
          since = performance.now();
          turn.signal.throwIfAborted();
        }
      } else await out;
    } catch (err) {
      status = turn.signal.aborted ? 'cancelled' : 'failed';
      errorType = errorTypeOf(err, turn.signal.aborted);
      throw err;
    } finally {
      elapsed += performance.now() - since;
      recordStageTiming(turn, { stage: name, occurrence, duration_ms: Math.round(elapsed * 1000) / 1000, status });
      span.end(status, errorType);
    }
  }
  if (turn.profile.policies.output === 'product') yield doneEvent(productEnvelope(turn));
  else yield resultEvent(resultEnvelope(turn));
}
