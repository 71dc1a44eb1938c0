/**
 * Staged SSE writer (hub-contract §3.1, decisions 2 and 12): engine events → `event:`/`data:` frames,
 * `: hb` heartbeats while a stage is silent, backpressure, and producer cancellation when the client leaves.
 */
import type { ServerResponse } from 'node:http';
import { isTerminal, type EngineEvent, type StreamEvent } from '../answer';
import { HubError, isAbortError } from '../errors';

/** SSE comment written while no event is ready; clients map it to a heartbeat (clients.md §2.1). */
export const HEARTBEAT_FRAME = ': hb\n\n';
const HEARTBEAT: StreamEvent = { name: 'heartbeat' };

/** Every line break an SSE parser may honour: the spec splits on CR, LF and CRLF alike. */
const LINE_BREAK = /\r\n|\r|\n/;

/**
 * One SSE frame. Objects are written as single-line JSON; JSON already escapes CR and LF, and we
 * escape U+2028/U+2029 too, since JSON.stringify leaves them raw and some line readers split on them.
 * A raw string is split on CR, CRLF and LF into one `data:` line each, so text can never open a
 * forged frame (e.g. "\revent: done\rdata: {…}").
 */
export function formatSseEvent(name: string, data: unknown): string {
  assertEventName(name);
  const payload = typeof data === 'string' ? data : toSingleLineJson(data);
  let frame = `event: ${name}\n`;
  for (const line of payload.split(LINE_BREAK)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

function toSingleLineJson(data: unknown): string {
  // JSON.stringify(undefined) is undefined, not a string; an absent payload is framed as null.
  const json = JSON.stringify(data) ?? 'null';
  return json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** The frame of one event of a staged stream: the heartbeat is an SSE comment, every other event a frame. */
export function formatStreamEvent(event: StreamEvent): string {
  return event.name === 'heartbeat' ? HEARTBEAT_FRAME : formatSseEvent(event.name, event.data);
}

/**
 * Event names come from engine code, never from model text; a name that could break the frame is a
 * bug, so it is rejected loudly rather than silently rewritten into a different event.
 */
function assertEventName(name: string): void {
  if (typeof name !== 'string' || name.length === 0 || /[\r\n:\u2028\u2029]/.test(name) || name !== name.trim()) {
    throw new TypeError(`Invalid SSE event name: ${JSON.stringify(name)}`);
  }
}

/**
 * Status and headers go out before any context work (decision 2): the ChartSearchAI module gives up
 * after 30 s without response headers. `X-Accel-Buffering: no` stops nginx from holding frames back.
 */
export function flushStagedHeaders(res: ServerResponse): void {
  if (res.headersSent) return;
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no');
  res.setHeader('Connection', 'keep-alive');
  res.flushHeaders();
}

export interface StreamStagedOptions {
  /** Silence after which `: hb` is written, and again after every further heartbeatMs of silence. */
  heartbeatMs: number;
  /** Aborted when the client is gone (the caller usually aborts it on `res` 'close'). */
  signal: AbortSignal;
  /** Called after each event frame was handed to the socket (metrics, e.g. time to `answer_done`). */
  onEvent?: (event: EngineEvent) => void;
}

export type StreamOutcome = 'completed' | 'client_gone';

/**
 * Writes engine events as staged SSE frames, assuming `flushStagedHeaders` already ran.
 *
 * - 'completed': the terminal event (`done` or `error`) was written and the response ended; the
 *   producer was closed with `return()`, as `for await … break` would (its finally blocks ran).
 * - 'client_gone': the client left (signal aborted, socket closed or errored); `return()` was called on
 *   the producer so it stops — if it is suspended inside an await, that takes effect once the await
 *   settles, which is why the producer must also honour the same AbortSignal.
 * - Rejects only when the producer itself failed (threw, or ended without a terminal event) while the
 *   client is still there; the response is then left open so the caller can write an `error` frame.
 * Never throws because the socket closed.
 */
export async function streamStagedEvents(
  res: ServerResponse,
  events: AsyncIterable<EngineEvent>,
  opts: StreamStagedOptions,
): Promise<StreamOutcome> {
  if (!(opts.heartbeatMs > 0) || !Number.isFinite(opts.heartbeatMs)) {
    throw new RangeError(`heartbeatMs must be a positive number, got ${opts.heartbeatMs}`);
  }
  const client = watchClient(res, opts.signal);
  const iterator = events[Symbol.asyncIterator]();
  let producerClosed = false;
  try {
    for (;;) {
      if (client.isGone()) return 'client_gone';
      // One next() per event, awaited across any number of heartbeats: the producer is never asked twice.
      const next = iterator.next();
      let step = await waitForStep(next, client, opts.heartbeatMs);
      while (step === 'silent') {
        step = (await writeFrame(res, formatStreamEvent(HEARTBEAT), client)) ? await waitForStep(next, client, opts.heartbeatMs) : 'gone';
      }
      if (step === 'gone') {
        // The abandoned next() may still reject later; swallow it so it cannot become unhandled.
        next.catch(() => undefined);
        return 'client_gone';
      }
      if (step.done) {
        producerClosed = true;
        throw new HubError('internal_error', 'The engine ended the stream without a terminal event.');
      }
      const event = step.value;
      if (!(await writeFrame(res, formatStreamEvent(event), client))) return 'client_gone';
      notify(opts.onEvent, event);
      if (isTerminal(event)) {
        // Ending here is what guarantees nothing is ever written after the terminal event.
        res.end();
        producerClosed = true;
        await closeProducer(iterator);
        return 'completed';
      }
    }
  } catch (err) {
    if (client.isGone() || (opts.signal.aborted && isAbortError(err))) return 'client_gone';
    throw err;
  } finally {
    client.dispose();
    // Not awaited: a producer stalled inside an await only runs its finally once that await settles.
    // Calling return() on a producer that already threw is harmless (it reports done).
    if (!producerClosed) void closeProducer(iterator);
    // The caller's signal may abort while the socket is still open (e.g. shutdown): do not leave it hanging.
    if (client.isGone() && !res.writableEnded && !res.destroyed) res.end();
  }
}

type StepOutcome = IteratorResult<EngineEvent> | 'gone' | 'silent';

/** Waits for the producer's next event, the client leaving, or heartbeatMs of silence — whichever is first. */
function waitForStep(next: Promise<IteratorResult<EngineEvent>>, client: ClientWatch, heartbeatMs: number): Promise<StepOutcome> {
  return new Promise<StepOutcome>((resolve, reject) => {
    let settled = false;
    let unsubscribe: () => void = () => undefined;
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe();
      settle();
    };
    const timer = setTimeout(() => finish(() => resolve('silent')), heartbeatMs);
    // onGone may call back synchronously (client already gone), hence `unsubscribe` is declared above.
    unsubscribe = client.onGone(() => finish(() => resolve('gone')));
    next.then(
      (step) => finish(() => resolve(step)),
      (err: unknown) => finish(() => reject(err)),
    );
  });
}

interface ClientWatch {
  isGone(): boolean;
  /** Calls `listener` once when the client leaves (immediately if it already has); returns an unsubscribe. */
  onGone(listener: () => void): () => void;
  dispose(): void;
}

/**
 * Client gone = the caller's signal aborted, or the socket closed/errored before we finished.
 * Listeners are subscribed per wait and removed afterwards, so a long stream with thousands of
 * heartbeats does not pile up callbacks on one long-lived promise.
 */
function watchClient(res: ServerResponse, signal: AbortSignal): ClientWatch {
  let left = false;
  const listeners = new Set<() => void>();
  const markGone = (): void => {
    if (left) return;
    left = true;
    for (const listener of [...listeners]) listener();
    listeners.clear();
  };
  const onClose = (): void => {
    if (!res.writableFinished) markGone();
  };
  // Stays attached after dispose: a late socket error must never become an uncaught 'error' event.
  res.on('error', markGone);
  res.on('close', onClose);
  signal.addEventListener('abort', markGone, { once: true });
  const isGone = (): boolean => left || signal.aborted || res.destroyed;
  return {
    isGone,
    onGone(listener) {
      if (isGone()) {
        listener();
        return () => undefined;
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      res.off('close', onClose);
      signal.removeEventListener('abort', markGone);
      listeners.clear();
    },
  };
}

/** Writes one frame; on backpressure waits for 'drain' unless the client leaves first. false = client gone. */
async function writeFrame(res: ServerResponse, chunk: string, client: ClientWatch): Promise<boolean> {
  if (client.isGone() || res.writableEnded) return false;
  let flushed: boolean;
  try {
    flushed = res.write(chunk);
  } catch {
    return false;
  }
  if (flushed) return true;
  const drained = await new Promise<boolean>((resolve) => {
    let unsubscribe: () => void = () => undefined;
    const onDrain = (): void => {
      unsubscribe();
      resolve(true);
    };
    res.once('drain', onDrain);
    unsubscribe = client.onGone(() => {
      res.off('drain', onDrain);
      resolve(false);
    });
  });
  return drained && !client.isGone();
}

async function closeProducer(iterator: AsyncIterator<EngineEvent>): Promise<void> {
  try {
    await iterator.return?.();
  } catch {
    // The response is finished or the client is gone; a producer failing during its own cleanup
    // has nobody left to report to here (the engine logs its own failures).
  }
}

function notify(onEvent: ((event: EngineEvent) => void) | undefined, event: EngineEvent): void {
  try {
    onEvent?.(event);
  } catch {
    // An observer (metrics) must never break a clinical answer stream.
  }
}
