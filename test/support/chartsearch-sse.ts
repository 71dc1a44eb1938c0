/**
 * Test helper: reads a hub's staged SSE body the way the ChartSearchAI module's hub provider does
 * (clients.md §2.1), plus the front end's In-Depth shape check (§2.3). Hub tests feed raw stream text
 * through it and assert the lifecycle the clients would see — and that the clients never had to
 * settle a stage the hub left `checking`/`pending` (decision 2).
 *
 * Interpretations where the module's prose leaves room (kept strict, so the hub is held to the
 * safest reading):
 * - A frame is dispatched only by its blank line; a trailing frame without one is never dispatched.
 * - A data payload that is not a JSON object, and an In-Depth event without an `inDepth` object, fail
 *   the turn: `turn_error` with `provider_failure`, and `error` carries the message.
 * - A clean end of body without `done`/`error` is `hub_stream_incomplete`, even after an answer; only
 *   `{ transportFailure: true }` (the connection broke) completes an answered turn as `turn_done`.
 */
import { isDeepStrictEqual } from 'node:util';

export interface HubEvent {
  name: string;
  data: Record<string, unknown>;
}

export interface ChartSearchStreamResult {
  /** Hub events as dispatched, up to and including the first terminal (heartbeats excluded). */
  events: HubEvent[];
  /** Module lifecycle events, e.g. ['turn_started', 'answer_done', 'indepth_pending', 'indepth_done', 'turn_done']. */
  turns: string[];
  /** The `turn_error` problem code, when the turn failed. */
  problemCode: string | null;
  /** Stages the module had to settle itself ('answerValidation', 'inDepth'); a correct hub leaves this empty. */
  settled: string[];
  /** `:` comment lines read before the terminal. */
  heartbeats: number;
  /** The parse/shape failure that killed the turn, if any. */
  error: string | null;
  /** The last answer envelope after settling: what the module would persist and relay with turn_done. */
  envelope: Record<string, unknown> | null;
}

export interface ParseOptions {
  /** The body ended because the connection broke, not with a clean end of stream. */
  transportFailure?: boolean;
}

/** Hub event → module event (newest provider). Anything not listed (e.g. `stream_cancelled`) is ignored. */
const EVENT_MAP: Readonly<Record<string, string>> = {
  answer_done: 'answer_done',
  answer_validation: 'answer_validation',
  evidence_updated: 'evidence_updated',
  grounded: 'evidence_updated',
  indepth_pending: 'indepth_pending',
  indepth_done: 'indepth_done',
  indepth_error: 'indepth_error',
  done: 'turn_done',
  error: 'turn_error',
};

const INDEPTH_EVENTS = new Set(['indepth_pending', 'indepth_done', 'indepth_error']);

class TurnFailure extends Error {}

export function parseChartSearchStream(raw: string, options: ParseOptions = {}): ChartSearchStreamResult {
  const result: ChartSearchStreamResult = {
    events: [],
    turns: ['turn_started'],
    problemCode: null,
    settled: [],
    heartbeats: 0,
    error: null,
    envelope: null,
  };
  const state = { sawEvidenceOrPending: false, terminal: false };
  try {
    for (const frame of readFrames(raw, () => result.heartbeats++)) {
      const event: HubEvent = { name: frame.name, data: parseJsonObject(frame.data) };
      result.events.push(event);
      handleEvent(event, result, state);
      // Reading stops at the first complete terminal: anything after it is never even parsed.
      if (state.terminal) return result;
    }
  } catch (err) {
    if (!(err instanceof TurnFailure)) throw err;
    result.error = err.message;
    settleEnvelope(result);
    failTurn(result, 'provider_failure');
    return result;
  }
  // No terminal frame: an interruption, so the module settles what it has, then decides how the turn ends.
  settleEnvelope(result);
  if (options.transportFailure && result.envelope) {
    result.turns.push('turn_done');
  } else {
    failTurn(result, options.transportFailure ? 'provider_failure' : 'hub_stream_incomplete');
  }
  return result;
}

interface RawFrame {
  name: string;
  data: string;
}

/** SSE line reader with the module's rules: split on `\n`, tolerate a trailing `\r`, blank line dispatches. */
function* readFrames(raw: string, onComment: () => void): Generator<RawFrame> {
  let name = '';
  let data: string[] = [];
  let hasField = false;
  const lines = raw.split('\n');
  // Like a line reader: text after the last `\n` is a final line only if non-empty; the empty string
  // after a trailing `\n` is not a blank (dispatching) line.
  if (lines[lines.length - 1] === '') lines.pop();
  for (const rawLine of lines) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (line === '') {
      if (hasField) yield { name: name || 'message', data: data.join('\n') };
      name = '';
      data = [];
      hasField = false;
    } else if (line.startsWith(':')) {
      onComment();
    } else if (line.startsWith('event:')) {
      name = line.slice('event:'.length).trim();
      hasField = true;
    } else if (line.startsWith('data:')) {
      const value = line.slice('data:'.length);
      data.push(value.startsWith(' ') ? value.slice(1) : value);
      hasField = true;
    }
    // Other fields (id:, retry:) and stray lines carry nothing the module reads.
  }
}

/** The module parses every dispatched payload as a JSON object; text frames kill the turn. */
function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TurnFailure(`SSE data is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (!isObject(value)) throw new TurnFailure(`SSE data is not a JSON object: ${JSON.stringify(text.slice(0, 80))}`);
  return value;
}

function handleEvent(event: HubEvent, result: ChartSearchStreamResult, state: { sawEvidenceOrPending: boolean; terminal: boolean }): void {
  const mapped = EVENT_MAP[event.name];
  if (mapped === undefined) return;
  if (INDEPTH_EVENTS.has(event.name) && !isObject(event.data.inDepth)) {
    // The retired flat In-Depth wire (status/answer at top level) is rejected by module and front end.
    throw new TurnFailure('Failed to parse in-depth response');
  }
  if (event.name === 'error') {
    state.terminal = true;
    settleEnvelope(result);
    failTurn(result, problemCodeOf(event.data));
    return;
  }
  const isEnvelope = typeof event.data.answer === 'string';
  if (event.name === 'done') {
    state.terminal = true;
    if (!isEnvelope) {
      settleEnvelope(result);
      failTurn(result, 'hub_stream_incomplete');
      return;
    }
    if (result.envelope === null) {
      result.turns.push('answer_done');
    } else if (!state.sawEvidenceOrPending && !isDeepStrictEqual(result.envelope, event.data)) {
      result.turns.push('evidence_updated');
    }
    result.envelope = cloneJson(event.data);
    settleEnvelope(result);
    result.turns.push('turn_done');
    return;
  }
  // Only a payload with a string answer counts as an envelope; anything else is not relayed.
  if (!isEnvelope) return;
  if (mapped === 'evidence_updated' || mapped === 'indepth_pending') state.sawEvidenceOrPending = true;
  result.envelope = cloneJson(event.data);
  result.turns.push(mapped);
}

/**
 * The module's settling of unfinished stages on a terminal or interruption. Recorded in `settled`,
 * since a hub that follows decision 2 never leaves anything for the client to settle.
 */
function settleEnvelope(result: ChartSearchStreamResult): void {
  const envelope = result.envelope;
  if (envelope === null) return;
  const validation = envelope.answerValidation;
  if (isObject(validation) && validation.status === 'checking') {
    envelope.answerValidation = { ...validation, status: 'unavailable', label: 'Check unavailable', summary: 'Answer checking was interrupted.' };
    result.settled.push('answerValidation');
  }
  const inDepth = envelope.inDepth;
  if (isObject(inDepth) && inDepth.status === 'pending') {
    envelope.inDepth = { ...inDepth, status: 'failed', error: 'In-Depth was interrupted.' };
    result.settled.push('inDepth');
  }
}

/** `detail.code`, else top-level `code`, else `hub_rejected_request` (clients.md §2.1 Errors). */
function problemCodeOf(payload: Record<string, unknown>): string {
  const detail = payload.detail;
  if (isObject(detail) && typeof detail.code === 'string' && detail.code) return detail.code;
  if (typeof payload.code === 'string' && payload.code) return payload.code;
  return 'hub_rejected_request';
}

function failTurn(result: ChartSearchStreamResult, code: string): void {
  result.problemCode = code;
  result.turns.push('turn_error');
}

/**
 * Payloads came from JSON, so a JSON round trip copies them exactly; structuredClone would build the
 * copy in Node's realm, which under jest's vm sandbox breaks isDeepStrictEqual against parsed data.
 */
function cloneJson(value: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
