/**
 * Health of the map's HTTP backends, by name. A backend that failed a call in a way that speaks of the
 * backend (no connection, 502/503: undelivered.ts) is unhealthy for a period and skipped while a healthy
 * replica of the model exists. When the period is over it is *probing*: usable again, and the next call or
 * discovery decides — a success makes it healthy, a failure starts a new period. No timer runs: the state
 * is read against a clock when a replica is chosen (tests inject the clock).
 */
import { performance } from 'node:perf_hooks';

/** How long a failed backend is passed over while a healthy replica exists. */
export const UNHEALTHY_MS = 10_000;

export type Health = 'healthy' | 'unhealthy' | 'probing';

export class HealthBook {
  private readonly downUntil = new Map<string, number>();

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly periodMs = UNHEALTHY_MS,
  ) {}

  /** Chosen first: healthy, or its period is over (the call that gets it probes it). */
  usable(name: string): boolean {
    const until = this.downUntil.get(name);
    return until === undefined || this.now() >= until;
  }

  state(name: string): Health {
    const until = this.downUntil.get(name);
    if (until === undefined) return 'healthy';
    return this.now() >= until ? 'probing' : 'unhealthy';
  }

  /** A failure of the backend itself: passed over for the period from now. */
  down(name: string): void {
    this.downUntil.set(name, this.now() + this.periodMs);
  }

  /** An answer came (a call reached a model, or discovery read its inventory). */
  up(name: string): void {
    if (this.downUntil.size > 0) this.downUntil.delete(name);
  }
}
