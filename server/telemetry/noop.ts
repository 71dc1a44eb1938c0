/** Telemetry switched off: shared objects whose methods do nothing, so an untraced turn allocates nothing for it. */
import type { ModelCallSpan, StageSpan, Telemetry, TurnSpan } from './types';

const NOOP_STAGE: StageSpan = { end: () => undefined };
const NOOP_CALL: ModelCallSpan = { end: () => undefined, fail: () => undefined };

export const NOOP_TURN_SPAN: TurnSpan = {
  stage: () => NOOP_STAGE,
  modelCall: () => NOOP_CALL,
  end: () => undefined,
};

export const NO_TELEMETRY: Telemetry = {
  enabled: false,
  startTurn: () => NOOP_TURN_SPAN,
  startCall: () => NOOP_CALL,
  flush: async () => undefined,
  shutdown: async () => undefined,
};
