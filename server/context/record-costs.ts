/**
 * Exact per-record costs for packing (§5.9 steps 5–6), in at most two batched tokenizer calls.
 *
 * A record-cost call returns every token's piece, so on a long chart it is far heavier than one
 * prompt count; costing thousands of eligible records that can never fit a small window would make
 * selection cost a multiple of counting the whole chart. So:
 * - Batch 1: ranked records, in ranking order, until their *estimated* tokens reach 1.5× the
 *   available units (all of them when the whole list is estimated within 2×).
 * - Batch 2: after a greedy pass over batch 1 leaves a gap of L units, the remaining records whose
 *   estimate is at most 2L — the only ones that can plausibly fill it — are costed as well.
 * Estimates use the exact tokens-per-byte ratio of the eligible view measured in step 3 and only
 * decide which records get costed; admission always uses exact costs and an exact final count.
 * A record left uncosted is treated as not fitting (`token_budget_after_<tier>`).
 */
import type { Entry } from './ranking';

export interface CostInput {
  ranked: readonly Entry[];
  /** Units left for non-mandatory records: input limit − mandatory-only prompt tokens. */
  available: number;
  /** Exact tokens per UTF-8 byte of the eligible view (step 3). */
  tokensPerByte: number;
  render(e: Entry): string;
  recordCosts(texts: string[]): Promise<number[]>;
}

const FIRST_BATCH_SHARE = 1.5;
const WHOLE_LIST_SHARE = 2;
const GAP_SHARE = 2;

/** Takes ranked records in order whenever their cost fits what is left; an oversized one is skipped. */
export function greedy(ranked: readonly Entry[], costs: ReadonlyMap<Entry, number>, unitBudget: number): { chosen: Entry[]; used: number } {
  const chosen: Entry[] = [];
  let used = 0;
  for (const e of ranked) {
    const cost = costs.get(e) ?? Number.POSITIVE_INFINITY;
    if (used + cost <= unitBudget) {
      chosen.push(e);
      used += cost;
    }
  }
  return { chosen, used };
}

export async function costRankedRecords(input: CostInput): Promise<{ costs: Map<Entry, number>; calls: number }> {
  const costs = new Map<Entry, number>();
  if (input.ranked.length === 0) return { costs, calls: 0 };
  const texts = new Map(input.ranked.map((e) => [e, input.render(e)] as const));
  const estimate = (e: Entry) => Buffer.byteLength(texts.get(e)!, 'utf8') * input.tokensPerByte;
  const total = input.ranked.reduce((sum, e) => sum + estimate(e), 0);

  let firstEnd = input.ranked.length;
  if (total > WHOLE_LIST_SHARE * input.available) {
    let sum = 0;
    firstEnd = input.ranked.findIndex((e) => (sum += estimate(e)) >= FIRST_BATCH_SHARE * input.available) + 1;
    if (firstEnd <= 0) firstEnd = input.ranked.length;
  }
  const cost = async (batch: readonly Entry[]) => {
    const measured = await input.recordCosts(batch.map((e) => texts.get(e)!));
    batch.forEach((e, i) => costs.set(e, Math.max(1, measured[i] ?? Number.POSITIVE_INFINITY)));
  };
  const first = input.ranked.slice(0, firstEnd);
  await cost(first);
  if (firstEnd === input.ranked.length) return { costs, calls: 1 };

  const gap = input.available - greedy(first, costs, input.available).used;
  const second = gap >= 1 ? input.ranked.slice(firstEnd).filter((e) => estimate(e) <= GAP_SHARE * gap) : [];
  if (second.length === 0) return { costs, calls: 1 };
  await cost(second);
  return { costs, calls: 2 };
}
