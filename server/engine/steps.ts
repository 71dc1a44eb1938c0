/**
 * The turn's trace steps: appended here and only here, read only by the trace record (trace/turn-trace.ts).
 * Nothing decides anything by reading a step back: what the route, metrics or a stage need is a typed
 * field of the turn (see slices/outcome.ts).
 */
export interface TraceStep {
  role: string;
  [key: string]: unknown;
}

export type HasSteps = { readonly steps: readonly TraceStep[] };

export function newSteps(): readonly TraceStep[] {
  return [];
}

export function recordStep(turn: HasSteps, step: TraceStep): void {
  (turn.steps as TraceStep[]).push(step);
}
