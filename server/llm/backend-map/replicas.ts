/**
 * The backends serving one model id, and the order in which one call tries them. The first attempt goes to
 * the least busy usable replica (calls holding or waiting for its slots, per slot, from its own semaphore;
 * ties taken in turn, so idle replicas share the work); a call that never reached a model goes on to the
 * least busy replica it has not tried, each replica once.
 */
import type { RouterClient } from '../types';
import type { HealthBook } from './health';

export interface Replica {
  /** The backend's name (the file's `name`, else its base URL; `embedded`; `default` for LLM_BASE_URL). */
  readonly name: string;
  readonly client: RouterClient;
}

/** Calls holding or waiting for the replica's slots, per slot: 0 idle, 1 every slot busy, above 1 a queue. */
export function loadOf(replica: Replica): number {
  const s = replica.client.slotState();
  return (s.inFlight + s.queued) / s.capacity;
}

/**
 * The candidate with the least load; among equals the first from `start` on (round robin when the caller
 * moves `start` for every choice). `candidates` is never empty.
 */
export function leastBusy<T>(candidates: readonly T[], load: (c: T) => number, start: number): T {
  const n = candidates.length;
  let best = candidates[start % n];
  let bestLoad = load(best);
  for (let i = 1; i < n; i++) {
    const c = candidates[(start + i) % n];
    const l = load(c);
    if (l < bestLoad) {
      best = c;
      bestLoad = l;
    }
  }
  return best;
}

export class ReplicaSet {
  /** The one replica when there is no choice to make (its calls go straight to it). */
  readonly single: Replica | null;
  private turn = 0;

  constructor(
    readonly replicas: readonly Replica[],
    private readonly health: HealthBook,
    private readonly load: (r: Replica) => number = loadOf,
  ) {
    if (replicas.length === 0) throw new RangeError('a replica set needs at least one replica');
    this.single = replicas.length === 1 ? replicas[0] : null;
  }

  /** The attempts of one call. */
  attempts(): Attempts {
    return new Attempts(this);
  }

  /** The next replica for a call that has tried `tried`, or null when every replica has had its attempt. */
  choose(tried: ReadonlySet<Replica>): Replica | null {
    const untried = tried.size === 0 ? this.replicas : this.replicas.filter((r) => !tried.has(r));
    if (untried.length === 0) return null;
    const usable = untried.filter((r) => this.health.usable(r.name));
    // Every untried replica marked down: one of them anyway (it may be back), rather than no answer.
    return leastBusy(usable.length > 0 ? usable : untried, this.load, this.turn++);
  }
}

/** One call's way through a replica set: each replica at most once. */
export class Attempts {
  private readonly tried = new Set<Replica>();

  constructor(private readonly set: ReplicaSet) {}

  next(): Replica | null {
    const replica = this.set.choose(this.tried);
    if (replica) this.tried.add(replica);
    return replica;
  }
}
