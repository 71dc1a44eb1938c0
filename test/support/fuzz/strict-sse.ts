/**
 * A deliberately strict reader of the hub's staged SSE body (hub-contract §3.1, decisions 2 and 12),
 * for fuzz tests: the body must be nothing but
 *
 *   event: <name>\n data: <single-line JSON object>\n \n      (one data line, never more)
 *   : hb\n \n                                              (heartbeat comment)
 *
 * A CR anywhere, a raw U+2028/U+2029, a second `data:` line, a stray line, a trailing partial frame or
 * anything after the terminal event is a framing failure: it is what a forged frame would look like.
 */

export interface StrictEvent {
  name: string;
  data: Record<string, unknown>;
}

export interface StrictStream {
  events: StrictEvent[];
  heartbeats: number;
}

export class FramingError extends Error {}

const EVENT_LINE = /^event: ([a-z_]+)$/;
const HEARTBEAT = ': hb';

/** Shows where the body went wrong without dumping megabytes into the assertion message. */
function around(raw: string, at: number): string {
  return JSON.stringify(raw.slice(Math.max(0, at - 60), at + 60));
}

export function parseStrictSse(raw: string): StrictStream {
  const cr = raw.indexOf('\r');
  if (cr >= 0) throw new FramingError(`raw CR in the stream at ${cr}: ${around(raw, cr)}`);
  const ls = raw.search(/[\u2028\u2029]/);
  if (ls >= 0) throw new FramingError(`raw U+2028/U+2029 in the stream at ${ls}: ${around(raw, ls)}`);
  if (raw === '') throw new FramingError('empty stream');
  if (!raw.endsWith('\n\n')) throw new FramingError(`the stream does not end with a blank line: ${around(raw, raw.length)}`);
  const out: StrictStream = { events: [], heartbeats: 0 };
  let offset = 0;
  // Payloads are single-line JSON, so "\n\n" can only ever be a frame boundary.
  for (const block of raw.slice(0, -2).split('\n\n')) {
    if (block === HEARTBEAT) {
      out.heartbeats++;
    } else {
      const lines = block.split('\n');
      const m = EVENT_LINE.exec(lines[0] ?? '');
      if (!m) throw new FramingError(`frame does not start with 'event: <name>': ${around(raw, offset)}`);
      if (lines.length !== 2) throw new FramingError(`frame '${m[1]}' has ${lines.length - 1} lines after its event line (exactly one data line expected): ${around(raw, offset)}`);
      if (!lines[1].startsWith('data: ')) throw new FramingError(`frame '${m[1]}' has no 'data: ' line: ${around(raw, offset)}`);
      let data: unknown;
      try {
        data = JSON.parse(lines[1].slice('data: '.length));
      } catch (err) {
        throw new FramingError(`frame '${m[1]}' data is not JSON (${(err as Error).message}): ${around(raw, offset)}`);
      }
      if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new FramingError(`frame '${m[1]}' data is not a JSON object: ${around(raw, offset)}`);
      out.events.push({ name: m[1], data: data as Record<string, unknown> });
    }
    offset += block.length + 2;
  }
  return out;
}

/**
 * The event orders a staged stream may take (§3.3, decision 2): the normal path, the abnormal paths
 * (failure after an event: only `done` follows; failure before any Answer: a fallback `done` alone),
 * and an in-band `error` (§3.1: context errors at any stage). An `error` after `indepth_pending` leaves
 * the client holding an In-Depth still `pending`, which decision 2 forbids; the hub does that today for a
 * context error raised by a later stage (reported), so it is accepted here and not generated on purpose.
 */
const LIFECYCLE = /^(?:answer_done(?: answer_validation)?(?: indepth_pending(?: indepth_done| indepth_error)?)? )?(?:done|error)$/;

/**
 * Codes an `event: error` may carry (§3.1: context errors travel in-band; a chart over the record
 * limit is bad input). `internal_error` is the route's last resort when the engine itself broke: a bug.
 */
const IN_BAND_ERRORS: ReadonlySet<string> = new Set(['insufficient_context', 'context_source_unavailable', 'context_source_failed', 'tokenization_unavailable', 'invalid_request_error']);

export interface LifecycleRules {
  /** The plan has a review stage (answer_validation allowed); undefined: not checked. */
  review?: boolean;
  /** The plan has In-Depth (indepth_* allowed, inDepth required); undefined: not checked. */
  inDepth?: boolean;
}

/** Checks the event names and the settled-state promises; returns a problem description or null. */
export function lifecycleProblem(stream: StrictStream, rules: LifecycleRules): string | null {
  const names = stream.events.map((e) => e.name);
  const joined = names.join(' ');
  if (!LIFECYCLE.test(joined)) return `event sequence is not a valid lifecycle: [${joined}]`;
  if (rules.review === false && names.includes('answer_validation')) return `answer_validation on a plan without review: [${joined}]`;
  if (rules.inDepth === false && names.some((n) => n.startsWith('indepth_'))) return `In-Depth events on a plan without In-Depth: [${joined}]`;
  for (const e of stream.events) {
    if (e.name === 'error') {
      for (const key of ['code', 'source', 'message']) if (typeof e.data[key] !== 'string') return `error event without a string '${key}': ${JSON.stringify(e.data).slice(0, 300)}`;
      if (!IN_BAND_ERRORS.has(e.data.code as string)) return `undesigned in-band error after [${joined}]: ${JSON.stringify(e.data).slice(0, 300)}`;
      continue;
    }
    if (typeof e.data.answer !== 'string') return `'${e.name}' payload has no string answer`;
    if ('status' in e.data) return `'${e.name}' payload carries a top-level status (In-Depth state must stay under inDepth)`;
    if (rules.inDepth === true && (typeof e.data.inDepth !== 'object' || e.data.inDepth === null)) return `'${e.name}' payload has no inDepth object`;
    if (rules.inDepth === false && 'inDepth' in e.data) return `'${e.name}' payload of a plan without In-Depth carries an inDepth key (decision 19)`;
  }
  const last = stream.events[stream.events.length - 1];
  if (last.name === 'done') {
    const validation = last.data.answerValidation as { status?: unknown } | undefined;
    if (validation && validation.status === 'checking') return 'done left answerValidation.status "checking"';
    const inDepth = last.data.inDepth as { status?: unknown } | undefined;
    if (inDepth && inDepth.status === 'pending') return 'done left inDepth.status "pending"';
  }
  return null;
}
