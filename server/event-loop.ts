/**
 * Giving the event loop back between the phases of a large turn. One chart of thousands of records
 * costs tens of milliseconds per phase (ledger, temporal facts, ranking); run back to back they stalled
 * every other clinician's stream and heartbeat for the sum. Small turns never pay for a yield.
 */

/** Charts with more records than this yield between phases. */
export const YIELD_ABOVE_RECORDS = 500;

/** Resolves on the next turn of the event loop, after pending I/O callbacks. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Yields when `records` is large enough for the phase just finished to have held the loop for long. */
export async function yieldIfLarge(records: number): Promise<void> {
  if (records > YIELD_ABOVE_RECORDS) await yieldToLoop();
}
