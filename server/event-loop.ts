/**
 * Giving the event loop back during a large turn. One chart of thousands of records costs tens of
 * milliseconds per phase (body parsing, ledger, temporal facts, ranking); run back to back, or even one
 * phase at a time, they stalled every other clinician's stream, heartbeat and /health for that long.
 * Large inputs are therefore processed in slices: a phase starts on a fresh loop turn and gives the loop
 * back whenever it has held it for SLICE_MS. Small turns never pay for a yield, and slicing never changes
 * a result: the sliced variants share their per-item code with the plain ones.
 */

/** Charts with more records than this yield between phases and are processed in slices. */
export const YIELD_ABOVE_RECORDS = 500;

/** Texts (an answer, a question) longer than this are checked in slices. */
export const SLICE_ABOVE_CHARS = 16 * 1024;

/** How long a sliced phase holds the loop before it yields (the loop's other work runs in between). */
export const SLICE_MS = 4;

/** Resolves on the next turn of the event loop, after pending I/O callbacks. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Yields when `records` is large enough for the phase just finished to have held the loop for long. */
export async function yieldIfLarge(records: number): Promise<void> {
  if (records > YIELD_ABOVE_RECORDS) await yieldToLoop();
}

/**
 * The time a sliced phase has held the loop since it last yielded. Callers test `due()` between items
 * (a clock read, no allocation) and `await slice.yield()` when it is.
 */
export class LoopSlice {
  private since = performance.now();
  /** Yields taken (for tests: a sliced run must actually have given the loop back). */
  yields = 0;

  constructor(private readonly budgetMs: number = SLICE_MS) {}

  due(): boolean {
    return performance.now() - this.since >= this.budgetMs;
  }

  async yield(): Promise<void> {
    await yieldToLoop();
    this.yields++;
    this.since = performance.now();
  }

  /** Yields when the budget is spent. */
  async maybeYield(): Promise<void> {
    if (this.due()) await this.yield();
  }
}

/**
 * Runs `step(from, to)` over `[0, n)` in runs of at most `chunk` items, yielding whenever the slice's
 * budget is spent. The runs cover the range in order, so a step that appends keeps the plain order.
 */
export async function inSlices(n: number, chunk: number, step: (from: number, to: number) => void, slice: LoopSlice = new LoopSlice()): Promise<void> {
  for (let from = 0; from < n; from += chunk) {
    step(from, Math.min(n, from + chunk));
    if (from + chunk < n) await slice.maybeYield();
  }
}

/**
 * A computation written as a generator that `yield`s (nothing) at the points where it may pause: between
 * runs of a few hundred items. The plain path runs it to its end at once (`runSteps`); a large input is
 * run with `stepsInSlices`, which gives the loop back at those points once the slice's budget is spent.
 * One body of code for both, so slicing cannot change a result.
 */
export type Steps<T> = Generator<void, T, void>;

/** When a sliced computation gives the loop back: `due()` between runs, then `await yield()`. */
export interface Slicer {
  due(): boolean;
  yield(): Promise<void>;
}

/** Runs `steps` to its end without pausing. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Runs `steps`, yielding to the loop at a pause point whenever `slice` says the budget is spent. */
export async function stepsInSlices<T>(steps: Steps<T>, slice: Slicer): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (slice.due()) await slice.yield();
  }
}

/** Items per run between pause points. */
export const ITEMS_PER_RUN = 512;

/** `items.forEach(f)`, with a pause point after every run of items. */
export function* eachInRuns<T>(items: readonly T[], f: (item: T) => void): Steps<void> {
  for (let i = 0; i < items.length; i++) {
    f(items[i]);
    if (i % ITEMS_PER_RUN === ITEMS_PER_RUN - 1) yield;
  }
}

/** `items.map(f)`, with pause points. */
export function* mapInRuns<T, U>(items: readonly T[], f: (item: T) => U): Steps<U[]> {
  const out: U[] = [];
  yield* eachInRuns(items, (x) => {
    out.push(f(x));
  });
  return out;
}

/** `items.filter(keep)`, with pause points. */
export function* filterInRuns<T>(items: readonly T[], keep: (item: T) => boolean): Steps<T[]> {
  const out: T[] = [];
  yield* eachInRuns(items, (x) => {
    if (keep(x)) out.push(x);
  });
  return out;
}
