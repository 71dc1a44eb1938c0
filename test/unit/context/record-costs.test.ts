import { costRankedRecords, greedy } from '../../../server/context/record-costs';
import type { Entry } from '../../../server/context/ranking';

/** Entries whose rendered text is `n` bytes; the fake tokenizer charges one token per byte. */
const entry = (id: number, n: number): Entry =>
  ({ record: { stableId: `r${id}`, text: 'x'.repeat(n) }, index: id, reason: 'meaningful_overlap' }) as unknown as Entry;
const render = (e: Entry) => e.record.text;
const TOKENS_PER_BYTE = 1;

function tokenizer() {
  const batches: string[][] = [];
  return {
    batches,
    recordCosts: async (texts: string[]) => {
      batches.push(texts);
      return texts.map((t) => t.length);
    },
  };
}

describe('costRankedRecords', () => {
  test('a candidate list within twice the budget is costed in one call', async () => {
    const ranked = [entry(1, 10), entry(2, 10), entry(3, 10)];
    const tok = tokenizer();
    const { costs, calls } = await costRankedRecords({ ranked, available: 20, tokensPerByte: TOKENS_PER_BYTE, render, recordCosts: tok.recordCosts });
    expect(calls).toBe(1);
    expect(tok.batches).toEqual([ranked.map(render)]);
    expect([...costs.values()]).toEqual([10, 10, 10]);
  });

  test('a long list: batch 1 covers 1.5× the budget, batch 2 only records that can fill the gap', async () => {
    // Budget 32: batch 1 = r1..r5 (50 estimated units ≥ 1.5 × 32); greedy takes r1..r3 (30), gap 2.
    const ranked = [...Array.from({ length: 5 }, (_, i) => entry(i + 1, 10)), entry(6, 40), entry(7, 2), entry(8, 12), entry(9, 4), entry(10, 100)];
    const tok = tokenizer();
    const { costs, calls } = await costRankedRecords({ ranked, available: 32, tokensPerByte: TOKENS_PER_BYTE, render, recordCosts: tok.recordCosts });
    expect(calls).toBe(2);
    expect(tok.batches[0]).toHaveLength(5);
    expect(tok.batches[1]).toEqual([render(ranked[6]), render(ranked[8])]); // estimates 2 and 4 ≤ 2 × gap
    expect(costs.has(ranked[5])).toBe(false);
    expect(costs.has(ranked[9])).toBe(false);
    // Uncosted records never fit; the gap filler is taken.
    expect(greedy(ranked, costs, 32).chosen.map((e) => e.record.stableId)).toEqual(['r1', 'r2', 'r3', 'r7']);
  });

  test('no gap left after batch 1: no second call', async () => {
    const ranked = Array.from({ length: 10 }, (_, i) => entry(i + 1, 10));
    const tok = tokenizer();
    const { calls } = await costRankedRecords({ ranked, available: 30, tokensPerByte: TOKENS_PER_BYTE, render, recordCosts: tok.recordCosts });
    expect(calls).toBe(1);
    expect(tok.batches[0]).toHaveLength(5);
  });

  test('nothing ranked: no call', async () => {
    const tok = tokenizer();
    expect((await costRankedRecords({ ranked: [], available: 10, tokensPerByte: 1, render, recordCosts: tok.recordCosts })).calls).toBe(0);
    expect(tok.batches).toHaveLength(0);
  });
});

describe('greedy', () => {
  test('an oversized record is skipped, not blocking', () => {
    const ranked = [entry(1, 50), entry(2, 5), entry(3, 5)];
    const costs = new Map(ranked.map((e) => [e, e.record.text.length] as const));
    expect(greedy(ranked, costs, 12)).toEqual({ chosen: [ranked[1], ranked[2]], used: 10 });
  });
});
