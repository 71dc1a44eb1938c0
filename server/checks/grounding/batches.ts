/**
 * Sequential, context-bounded fact-check batches (§7.5 Target): at most `maxPerBatch` pairs per
 * call so small checkers stay accurate, one call at a time so the router slot is not hogged, and
 * a failed batch only leaves its own pairs unchecked (§12 *Grounding*).
 */
import type { BatchRecord, FactCheckItem, FactCheckResult } from './types';
import { deriveSupport, parseFactReply } from './verdicts';

export interface FactCheckIO {
  /** Whether a batch of items (rendered with factCheckPrompt) fits the checker's context; may be async (exact token counts). */
  fits(items: readonly FactCheckItem[]): Promise<boolean>;
  /** Asks the checker; resolves to the raw reply content. Rejects on call failure. An AbortError must propagate. */
  ask(items: readonly FactCheckItem[]): Promise<string>;
}

const DEFAULT_PER_BATCH = 4;
const ERROR_MAX = 200;

function perBatch(n: number | undefined): number {
  if (n === undefined || !Number.isFinite(n)) return DEFAULT_PER_BATCH;
  return Math.max(1, Math.floor(n));
}

function isAbort(err: unknown, signal: AbortSignal | undefined): boolean {
  return (err instanceof Error && err.name === 'AbortError') || signal?.aborted === true;
}

function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.slice(0, ERROR_MAX);
}

export async function runFactChecks(
  items: readonly FactCheckItem[],
  io: FactCheckIO,
  opts: { maxPerBatch?: number; signal?: AbortSignal } = {},
): Promise<{ results: FactCheckResult[]; batches: BatchRecord[] }> {
  const { signal } = opts;
  // Fail-open default: anything no call judged stays unchecked, never a fabricated verdict.
  const results: FactCheckResult[] = items.map(() => ({ support: 'unchecked', facts: null, batch: null }));
  const batches: BatchRecord[] = [];

  const record = (positions: number[], outcome: BatchRecord['outcome'], error?: string): number => {
    const batch = batches.length + 1;
    batches.push(error === undefined ? { batch, items: positions, outcome } : { batch, items: positions, outcome, error });
    return batch;
  };

  const run = async (positions: number[]): Promise<void> => {
    signal?.throwIfAborted();
    const batchItems = positions.map((p) => items[p]);
    let fits: boolean;
    try {
      fits = await io.fits(batchItems);
    } catch (err) {
      if (isAbort(err, signal)) throw err;
      record(positions, 'failed', messageOf(err));
      return;
    }
    if (!fits) {
      if (positions.length === 1) {
        record(positions, 'overflow');
        return;
      }
      // Halves, recursively, until each part fits or is a single pair that cannot (§7.5 step 3).
      const half = Math.ceil(positions.length / 2);
      await run(positions.slice(0, half));
      await run(positions.slice(half));
      return;
    }

    let reply: string;
    try {
      reply = await io.ask(batchItems);
    } catch (err) {
      if (isAbort(err, signal)) throw err;
      record(positions, 'failed', messageOf(err));
      return;
    }
    const parsed = parseFactReply(reply, positions.length);
    if (parsed === null) {
      record(positions, 'malformed');
      return;
    }
    const batch = record(positions, 'checked');
    positions.forEach((p, i) => {
      const facts = parsed[i];
      // A pair the reply did not judge keeps the unchecked default and no batch number.
      if (facts !== null) results[p] = { support: deriveSupport(facts), facts, batch };
    });
  };

  const size = perBatch(opts.maxPerBatch);
  for (let start = 0; start < items.length; start += size) {
    const positions: number[] = [];
    for (let p = start; p < Math.min(items.length, start + size); p++) positions.push(p);
    await run(positions); // sequential on purpose: never two checker calls at once
  }
  return { results, batches };
}
