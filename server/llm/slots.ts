/**
 * Router slot semaphore (decision 5): at most `capacity` model calls in flight, a bounded FIFO queue
 * behind them, and a 503 `router_busy` when the queue is full. A waiter whose signal aborts leaves the
 * queue; a release function frees exactly the slot it was handed out with, once.
 */
import { RouterBusyError } from '../errors';
import type { SlotEvidence } from './types';

/** Seconds a client should wait before retrying after `router_busy` (small: slots turn over quickly). */
export const ROUTER_BUSY_RETRY_AFTER_SECONDS = 2;

export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
}

export interface SlotState {
  inFlight: number;
  queued: number;
  capacity: number;
  maxQueue: number;
}

/** An AbortError for a signal: its own reason when that already is one, else a fresh DOMException. */
export function abortErrorFrom(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

export function routerBusyError(): RouterBusyError {
  return new RouterBusyError('The model router queue is full; retry shortly.', {
    headers: { 'Retry-After': String(ROUTER_BUSY_RETRY_AFTER_SECONDS) },
  });
}

export class SlotSemaphore {
  readonly capacity: number;
  readonly maxQueue: number;
  private inFlight = 0;
  private readonly waiters: Waiter[] = [];

  constructor(capacity: number, maxQueue: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be an integer >= 1, got ${capacity}`);
    if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new RangeError(`maxQueue must be an integer >= 0, got ${maxQueue}`);
    this.capacity = capacity;
    this.maxQueue = maxQueue;
  }

  /** Resolves with a release function once a slot is held; FIFO behind earlier waiters. */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(abortErrorFrom(signal));
    // Queue non-empty means earlier callers are still waiting: never overtake them.
    if (this.inFlight < this.capacity && this.waiters.length === 0) {
      this.inFlight++;
      return Promise.resolve(this.makeRelease());
    }
    if (this.waiters.length >= this.maxQueue) return Promise.reject(routerBusyError());
    return this.enqueue(signal);
  }

  state(): SlotState {
    return { inFlight: this.inFlight, queued: this.waiters.length, capacity: this.capacity, maxQueue: this.maxQueue };
  }

  private enqueue(signal?: AbortSignal): Promise<Release> {
    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(abortErrorFrom(signal));
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Each release function frees one slot at most once, so a double release can never free a stranger's slot. */
  private makeRelease(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.handOff();
    };
  }

  /** A freed slot goes straight to the oldest waiter (inFlight unchanged), else back to the pool. */
  private handOff(): void {
    const next = this.waiters.shift();
    if (next) next.grant(this.makeRelease());
    else this.inFlight--;
  }
}

/** Wraps a release so the request's slot evidence (§10.1) counts this slot once in and once out. */
export function withEvidence(release: Release, evidence?: SlotEvidence): Release {
  if (evidence) {
    evidence.acquisitions++;
    evidence.active++;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
    if (evidence) {
      evidence.releases++;
      evidence.active--;
    }
  };
}
