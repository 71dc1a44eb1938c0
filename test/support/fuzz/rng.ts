/**
 * A small seeded pseudo-random generator for fuzz tests (no dependency): the same seed always yields
 * the same sequence, so a failing case reproduces from the seed printed in the assertion message.
 */
export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** mulberry32: a uniform float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  bool(p = 0.5): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty list');
    return items[Math.floor(this.next() * items.length)];
  }

  /** A few distinct items, in random order. */
  sample<T>(items: readonly T[], n: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < n && pool.length > 0) out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]);
    return out;
  }

  /** A derived generator, so one case's draws never shift another's. */
  fork(salt: number): Rng {
    return new Rng((Math.imul(this.seed ^ 0x5bd1e995, 2654435761) + Math.imul(salt + 1, 0x27d4eb2d)) >>> 0);
  }
}

/** The seed of a fuzz run: `FUZZ_SEED` when given (to replay a failure), else a fixed default. */
export function fuzzSeed(defaultSeed: number): number {
  const given = process.env.FUZZ_SEED;
  if (given === undefined || given.trim() === '') return defaultSeed;
  const n = Number(given);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`FUZZ_SEED must be a non-negative integer, got ${JSON.stringify(given)}`);
  return n;
}
