/**
 * OpenTelemetry spans (GenAI semantic conventions) for turns, their stages and model calls, exported over
 * OTLP/HTTP when an endpoint is configured. Off (the default), `NO_TELEMETRY` answers every call with a
 * shared no-op and the SDK is never loaded: otel.ts is required here, and only when on.
 */
import type { TelemetryConfig } from '../config';
import type { Logger } from '../logger';
import { NO_TELEMETRY } from './noop';
import type { Telemetry } from './types';

export { NO_TELEMETRY, NOOP_TURN_SPAN } from './noop';
export { errorTypeOf } from './error-type';
export type { CallSpanStart, ModelCallSpan, ModelRequestFacts, ModelResultFacts, SpanOutcome, StageSpan, Telemetry, TurnSpan, TurnSpanEnd, TurnSpanStart } from './types';

export function createTelemetry(config: TelemetryConfig | null, deps: { logger: Logger; serviceVersion: string | null }): Telemetry {
  if (config === null) return NO_TELEMETRY;
  const { createOtelTelemetry } = require('./otel') as typeof import('./otel');
  return createOtelTelemetry(config, deps);
}
