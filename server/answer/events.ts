/**
 * What the engine yields (hub-contract §3.3): one discriminated union, so the SSE writer, the blocking
 * drain and the trace read the same typed events and the envelope is stated once (envelope.ts).
 * Constructors live in engine/events.ts.
 */
import type { LegEnvelope, ProductEnvelope } from './envelope';

/** The staged events before `done`, in their contract order; each carries the complete envelope. */
export const STAGED_EVENT_NAMES = ['answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'indepth_error'] as const;
export type StagedEventName = (typeof STAGED_EVENT_NAMES)[number];

export type StagedEvent = { name: StagedEventName; data: ProductEnvelope };
/** Terminal event of a product turn: the final envelope. */
export type DoneEvent = { name: 'done'; data: ProductEnvelope };

/** `event: error` data (§3.1): `{code, source, message}` plus the actionable detail fields. */
export type ErrorEventData = { code: string; source: string; message: string; model?: unknown; expected_file?: unknown };
/** Terminal event of a stream that ends without an Answer (a context or request error). */
export type ErrorEvent = { name: 'error'; data: ErrorEventData };

/** The one event of a leg or plain profile: its result envelope (§3.8). */
export type ResultEvent = { name: 'result'; data: LegEnvelope };

export type EngineEvent = StagedEvent | DoneEvent | ErrorEvent | ResultEvent;

/** Written by the SSE writer, never by the engine, while a stage is silent (`: hb`, §3.1). */
export type HeartbeatEvent = { name: 'heartbeat' };

/** Everything a staged stream carries. */
export type StreamEvent = EngineEvent | HeartbeatEvent;

/** The events after which nothing more may be written (decision 2). */
export function isTerminal(event: StreamEvent): event is DoneEvent | ErrorEvent {
  return event.name === 'done' || event.name === 'error';
}
