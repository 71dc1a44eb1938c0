/**
 * How the turn's run went (`turn.outcome`), as typed facts the route, metrics and trace read instead
 * of reading trace steps back: each stage's timing, a pipeline failure the product turn settled, and a
 * shutdown that settled the turn. Written only here; each writer also appends the trace step that
 * records the same fact (the trace line keeps its shape).
 */
import { recordStep, type HasSteps } from '../steps';
import type { Writable } from './writable';

export interface StageTiming {
  stage: string;
  /** 1 for a stage's first run in the plan, 2 for its second (a plan may run a stage twice). */
  occurrence: number;
  duration_ms: number;
  status: 'completed' | 'failed' | 'cancelled';
}

export interface OutcomeSlice {
  /** Every stage run so far, in order (its timing, also a `stage_timing` trace step). */
  readonly stages: readonly StageTiming[];
  /** A failure the product turn settled (a fallback or restored Answer, or `event: error`): its error code or name. */
  readonly pipelineError: string | null;
  /** Set when shutdown settled the turn: a restored Answer (`late_failure`) or an error. */
  readonly shutdown: { settled: 'late_failure' | 'error' } | null;
}

type HasOutcome = HasSteps & { readonly outcome: OutcomeSlice };

export function newOutcomeSlice(): OutcomeSlice {
  return { stages: [], pipelineError: null, shutdown: null };
}

function own(turn: HasOutcome): Writable<OutcomeSlice> {
  return turn.outcome;
}

export function recordStageTiming(turn: HasOutcome, timing: StageTiming): void {
  const slice = own(turn);
  slice.stages = [...slice.stages, timing];
  recordStep(turn, { role: 'stage_timing', ...timing });
}

export function notePipelineError(turn: HasOutcome, error: string): void {
  own(turn).pipelineError = error;
  recordStep(turn, { role: 'pipeline_error', error });
}

export function noteShutdown(turn: HasOutcome, settled: 'late_failure' | 'error'): void {
  own(turn).shutdown = { settled };
  recordStep(turn, { role: 'shutdown', settled });
}
