/**
 * Staged events (hub-contract §3.1–3.5) from SSE frames, with the strictness of the deployed clients
 * (clients.md §2.1, §2.3): every data payload must be a JSON object; every envelope event carries a
 * string `answer`; In-Depth lives only under `inDepth`, so the retired flattened shape (In-Depth's
 * `status`/`error`/`validation` at the top level, or an In-Depth event without an `inDepth` object)
 * is refused rather than shown as the Answer.
 */
import type { ErrorEventData, ProductEnvelope } from './envelope.js';
import { ProtocolError } from './errors.js';
import type { SseFrame } from './sse.js';

export const ENVELOPE_EVENT_NAMES = ['answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'indepth_error', 'done'] as const;
export type EnvelopeEventName = (typeof ENVELOPE_EVENT_NAMES)[number];

export type EnvelopeEvent = { name: EnvelopeEventName; data: ProductEnvelope };
export type ErrorEvent = { name: 'error'; data: ErrorEventData };
/** What a staged stream yields; `done` and `error` are terminal. */
export type StagedEvent = EnvelopeEvent | ErrorEvent;
export type StagedEventName = StagedEvent['name'];

const ENVELOPE_EVENTS: ReadonlySet<string> = new Set(ENVELOPE_EVENT_NAMES);
const IN_DEPTH_EVENTS: ReadonlySet<string> = new Set(['indepth_pending', 'indepth_done', 'indepth_error']);
/**
 * In-Depth's own fields, which the retired shape put at the top level of the payload (hub-contract §3.5
 * [REF-old]: `{status, answer, error, validation}`), and the older clients' flat names for them. The
 * current envelope has none of these keys at its top level.
 */
const FLATTENED_IN_DEPTH_KEYS = ['status', 'error', 'validation', 'inDepthStatus', 'inDepthAnswer', 'inDepthError', 'in_depth'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseObject(frame: SseFrame): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(frame.data);
  } catch {
    throw new ProtocolError(`event: ${frame.event} carries data that is not JSON`);
  }
  if (!isObject(value)) throw new ProtocolError(`event: ${frame.event} carries data that is not a JSON object`);
  return value;
}

/**
 * The typed event of one frame, or null for an event this client does not know (ignored, as the
 * deployed module ignores e.g. `stream_cancelled`). Throws ProtocolError when the frame breaks the wire.
 */
export function stagedEventOf(frame: SseFrame): StagedEvent | null {
  const data = parseObject(frame);
  if (frame.event === 'error') {
    for (const key of ['code', 'source', 'message'] as const) {
      if (typeof data[key] !== 'string') throw new ProtocolError(`event: error data has no string ${key}`);
    }
    return { name: 'error', data: data as unknown as ErrorEventData };
  }
  if (!ENVELOPE_EVENTS.has(frame.event)) return null;
  if (typeof data.answer !== 'string') throw new ProtocolError(`event: ${frame.event} carries no string answer`);
  const flattened = FLATTENED_IN_DEPTH_KEYS.filter((key) => key in data);
  if (flattened.length > 0) {
    throw new ProtocolError(`event: ${frame.event} has In-Depth fields at the top level (${flattened.join(', ')}): the retired flattened In-Depth shape`);
  }
  if (IN_DEPTH_EVENTS.has(frame.event) && !isObject(data.inDepth)) {
    throw new ProtocolError(`event: ${frame.event} has no inDepth object (the retired flattened In-Depth shape)`);
  }
  return { name: frame.event as EnvelopeEventName, data: data as unknown as ProductEnvelope };
}

export function isTerminal(event: StagedEvent): boolean {
  return event.name === 'done' || event.name === 'error';
}
