/**
 * Graceful shutdown of in-flight turns (SIGTERM/SIGINT): once the drain period is over, a turn still
 * running is settled, never cut: a stream gets a terminal event (the last emitted Answer with its
 * checks settled as a late failure, or `error` when no Answer was out yet), a blocking request gets the
 * Answer it already has or a 503 — and only then is the turn's work aborted.
 */
import type { DoneEvent, EngineEvent, ErrorEvent, BlockingProductEnvelope, LegEnvelope } from '../answer';
import { ShuttingDownError } from '../errors';
import { blockingEnvelope, doneEvent, errorEvent, lateFailureEnvelope, noteShutdown, type TurnState } from '../engine';

const SHUTDOWN = Symbol('shutdown');

export function shuttingDownError(): ShuttingDownError {
  return new ShuttingDownError('The hub is shutting down; please retry.', { headers: { 'Retry-After': '5' } });
}

function whenAborted(signal: AbortSignal): { promise: Promise<typeof SHUTDOWN>; dispose: () => void } {
  let onAbort: () => void = () => undefined;
  const promise = new Promise<typeof SHUTDOWN>((resolve) => {
    onAbort = () => resolve(SHUTDOWN);
    if (signal.aborted) resolve(SHUTDOWN);
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/** The terminal event a stream gets when shutdown interrupts its turn. */
export function shutdownEvent(turn: TurnState): DoneEvent | ErrorEvent {
  if (turn.answer.lastEmitted) return doneEvent(lateFailureEnvelope(turn));
  return errorEvent(shuttingDownError());
}

/**
 * Passes the engine's events through until `shutdown` aborts; then yields the settled terminal event
 * and aborts the turn (after the frame is written, so the writer does not take it for a client leaving).
 */
export async function* untilShutdown(events: AsyncIterable<EngineEvent>, turn: TurnState, shutdown: AbortSignal, abortTurn: () => void): AsyncGenerator<EngineEvent> {
  const iterator = events[Symbol.asyncIterator]();
  const stop = whenAborted(shutdown);
  let interrupted = false;
  try {
    for (;;) {
      const next = iterator.next();
      const step = await Promise.race([next, stop.promise]);
      if (step === SHUTDOWN) {
        interrupted = true;
        next.catch(() => undefined);
        noteShutdown(turn, turn.answer.lastEmitted ? 'late_failure' : 'error');
        yield shutdownEvent(turn);
        return;
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    stop.dispose();
    if (interrupted) abortTurn();
    else await iterator.return?.(undefined);
  }
}

/** A blocking turn interrupted by shutdown: the Answer it already has, settled, or a 503. */
export async function drainUntilShutdown(drain: Promise<BlockingProductEnvelope | LegEnvelope>, turn: TurnState, shutdown: AbortSignal, abortTurn: () => void): Promise<BlockingProductEnvelope | LegEnvelope> {
  const stop = whenAborted(shutdown);
  try {
    const result = await Promise.race([drain, stop.promise]);
    if (result !== SHUTDOWN) return result;
    drain.catch(() => undefined);
    noteShutdown(turn, turn.answer.lastEmitted ? 'late_failure' : 'error');
    const envelope = turn.answer.lastEmitted ? blockingEnvelope(lateFailureEnvelope(turn)) : null;
    abortTurn();
    if (!envelope) throw shuttingDownError();
    return envelope;
  } finally {
    stop.dispose();
  }
}
