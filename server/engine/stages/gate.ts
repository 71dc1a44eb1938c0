/**
 * `gate` stage. With the temporal gate off the result is `not_applicable` (nothing was checked, and
 * it says so). The deterministic temporal checks for `warn`/`enforce` come with the temporal-gates
 * work; until then a plan that needs them is refused before any model call (see `unrunnableStages`).
 */
import type { Stage } from '../types';

export const gateStage: Stage = {
  name: 'gate',
  async run(turn) {
    turn.temporalGate = {
      schema_version: 'temporal_gate.v1',
      mode: turn.temporal.mode,
      status: 'not_applicable',
      checks: [],
      patch_answer: null,
      patch_citations: [],
      applied: 'none',
    };
    turn.steps.push({ role: 'temporal_gate', mode: turn.temporal.mode, status: 'not_applicable', applied: 'none', n_checks: 0 });
  },
};
