import { runFactChecks, type FactCheckIO, type FactCheckItem, type FactStatus } from '../../../../server/checks/grounding';

/** Items whose statement names the status the fake checker reports for it. */
function items(...statuses: FactStatus[]): FactCheckItem[] {
  return statuses.map((s, i) => ({ statement: `${s} ${i}`, sources: `[${i + 1}] record` }));
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

function reply(batch: readonly FactCheckItem[]): string {
  const pairs = batch.map((item, i) => ({
    pair: i + 1,
    facts: [{ fact: item.statement, status: item.statement.split(' ')[0], source_says: 'chart value' }],
  }));
  return JSON.stringify({ pairs });
}

/** A fake checker that records every call and the peak number of calls in flight. */
function fakeIO(overrides: Partial<{ ask: (b: readonly FactCheckItem[], call: number) => Promise<string>; fits: (b: readonly FactCheckItem[]) => Promise<boolean> }> = {}) {
  const asked: string[][] = [];
  let inFlight = 0;
  let peak = 0;
  const io: FactCheckIO = {
    fits: overrides.fits ?? (async () => true),
    async ask(batch) {
      asked.push(batch.map((b) => b.statement));
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      try {
        await tick();
        return overrides.ask ? await overrides.ask(batch, asked.length) : reply(batch);
      } finally {
        inFlight -= 1;
      }
    },
  };
  return { io, asked, peak: () => peak };
}

describe('runFactChecks', () => {
  test('9 items ⇒ 3 sequential batches of 4, 4, 1 with derived verdicts', async () => {
    const fake = fakeIO();
    const input = items('found', 'differs', 'not_found', 'found', 'found', 'found', 'differs', 'not_found', 'found');
    const { results, batches } = await runFactChecks(input, fake.io);
    expect(fake.asked.map((b) => b.length)).toEqual([4, 4, 1]);
    expect(fake.asked.flat()).toEqual(input.map((i) => i.statement)); // stable order
    expect(fake.peak()).toBe(1); // never concurrent
    expect(batches).toEqual([
      { batch: 1, items: [0, 1, 2, 3], outcome: 'checked' },
      { batch: 2, items: [4, 5, 6, 7], outcome: 'checked' },
      { batch: 3, items: [8], outcome: 'checked' },
    ]);
    expect(results.map((r) => r.support)).toEqual([
      'supported', 'contradicted', 'not_addressed', 'supported', 'supported', 'supported', 'contradicted', 'not_addressed', 'supported',
    ]);
    expect(results.map((r) => r.batch)).toEqual([1, 1, 1, 1, 2, 2, 2, 2, 3]);
    expect(results[1].facts).toEqual([{ fact: 'differs 1', status: 'differs', source_says: 'chart value' }]);
  });

  test('a failed second batch leaves only its own items unchecked', async () => {
    const long = 'x'.repeat(500);
    const fake = fakeIO({ ask: async (b, call) => (call === 2 ? Promise.reject(new Error(long)) : reply(b)) });
    const { results, batches } = await runFactChecks(items(...Array<FactStatus>(9).fill('found')), fake.io);
    expect(fake.asked).toHaveLength(3); // batch 3 still runs
    expect(results.map((r) => r.support)).toEqual([
      'supported', 'supported', 'supported', 'supported', 'unchecked', 'unchecked', 'unchecked', 'unchecked', 'supported',
    ]);
    expect(results[4]).toEqual({ support: 'unchecked', facts: null, batch: null });
    expect(batches.map((b) => b.outcome)).toEqual(['checked', 'failed', 'checked']);
    expect(batches[1].items).toEqual([4, 5, 6, 7]);
    expect(batches[1].error).toBe('x'.repeat(200));
  });

  test('a malformed reply leaves that batch unchecked', async () => {
    const fake = fakeIO({ ask: async (b, call) => (call === 1 ? 'YES\nNO' : reply(b)) });
    const { results, batches } = await runFactChecks(items('found', 'found', 'found', 'found', 'differs'), fake.io);
    expect(results.map((r) => r.support)).toEqual(['unchecked', 'unchecked', 'unchecked', 'unchecked', 'contradicted']);
    expect(batches).toEqual([
      { batch: 1, items: [0, 1, 2, 3], outcome: 'malformed' },
      { batch: 2, items: [4], outcome: 'checked' },
    ]);
  });

  test('a pair missing from the reply is unchecked, the rest keep their verdicts', async () => {
    const fake = fakeIO({ ask: async (b) => JSON.stringify({ pairs: JSON.parse(reply(b)).pairs.filter((p: { pair: number }) => p.pair !== 2) }) });
    const { results, batches } = await runFactChecks(items('found', 'differs', 'found'), fake.io);
    expect(results).toEqual([
      expect.objectContaining({ support: 'supported', batch: 1 }),
      { support: 'unchecked', facts: null, batch: null },
      expect.objectContaining({ support: 'supported', batch: 1 }),
    ]);
    expect(batches).toEqual([{ batch: 1, items: [0, 1, 2], outcome: 'checked' }]);
  });

  test('overflow splits in halves down to single items; a single item that cannot fit is unchecked', async () => {
    // Everything with more than one item overflows, and item 2 never fits.
    const fits = async (b: readonly FactCheckItem[]): Promise<boolean> => b.length === 1 && b[0].statement !== 'found 2';
    const fake = fakeIO({ fits });
    const { results, batches } = await runFactChecks(items('found', 'found', 'found', 'found', 'differs'), fake.io);
    expect(fake.asked).toEqual([['found 0'], ['found 1'], ['found 3'], ['differs 4']]);
    expect(batches).toEqual([
      { batch: 1, items: [0], outcome: 'checked' },
      { batch: 2, items: [1], outcome: 'checked' },
      { batch: 3, items: [2], outcome: 'overflow' },
      { batch: 4, items: [3], outcome: 'checked' },
      { batch: 5, items: [4], outcome: 'checked' },
    ]);
    expect(results.map((r) => [r.support, r.batch])).toEqual([
      ['supported', 1], ['supported', 2], ['unchecked', null], ['supported', 4], ['contradicted', 5],
    ]);
    expect(fake.peak()).toBe(1);
  });

  test('a batch that fits in halves is split once', async () => {
    const fake = fakeIO({ fits: async (b) => b.length <= 2 });
    const { batches } = await runFactChecks(items('found', 'found', 'found', 'found'), fake.io);
    expect(batches.map((b) => b.items)).toEqual([[0, 1], [2, 3]]);
  });

  test('a fits check that fails counts as a failed batch', async () => {
    let calls = 0;
    const fake = fakeIO({ fits: async () => (++calls === 1 ? Promise.reject(new Error('tokenizer down')) : true) });
    const { results, batches } = await runFactChecks(items('found', 'found', 'found', 'found', 'found'), fake.io);
    expect(batches).toEqual([
      { batch: 1, items: [0, 1, 2, 3], outcome: 'failed', error: 'tokenizer down' },
      { batch: 2, items: [4], outcome: 'checked' },
    ]);
    expect(results.map((r) => r.support)).toEqual(['unchecked', 'unchecked', 'unchecked', 'unchecked', 'supported']);
  });

  test('an AbortError from ask propagates and stops further batches', async () => {
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    const fake = fakeIO({ ask: async () => Promise.reject(abort) });
    await expect(runFactChecks(items('found', 'found', 'found', 'found', 'found'), fake.io)).rejects.toBe(abort);
    expect(fake.asked).toHaveLength(1);
  });

  test('any failure after the signal aborted propagates', async () => {
    const controller = new AbortController();
    const failure = new Error('socket closed');
    const fake = fakeIO({
      ask: async () => {
        controller.abort();
        return Promise.reject(failure);
      },
    });
    await expect(runFactChecks(items('found'), fake.io, { signal: controller.signal })).rejects.toBe(failure);
  });

  test('an already aborted signal makes no call', async () => {
    const controller = new AbortController();
    controller.abort();
    const fake = fakeIO();
    await expect(runFactChecks(items('found'), fake.io, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(fake.asked).toHaveLength(0);
  });

  test('an AbortError from fits propagates', async () => {
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    const fake = fakeIO({ fits: async () => Promise.reject(abort) });
    await expect(runFactChecks(items('found'), fake.io)).rejects.toBe(abort);
  });

  test('empty items ⇒ no calls', async () => {
    let fitsCalls = 0;
    const fake = fakeIO({ fits: async () => (++fitsCalls, true) });
    await expect(runFactChecks([], fake.io)).resolves.toEqual({ results: [], batches: [] });
    expect(fake.asked).toHaveLength(0);
    expect(fitsCalls).toBe(0);
  });

  test.each<[string, number | undefined, number[]]>([
    ['default 4', undefined, [4, 1]],
    ['explicit 2', 2, [2, 2, 1]],
    ['0 clamps to 1', 0, [1, 1, 1, 1, 1]],
    ['negative clamps to 1', -3, [1, 1, 1, 1, 1]],
    ['fraction floors', 2.7, [2, 2, 1]],
    ['NaN ⇒ default', Number.NaN, [4, 1]],
    ['larger than the list', 10, [5]],
  ])('maxPerBatch %s', async (_name, maxPerBatch, sizes) => {
    const fake = fakeIO();
    await runFactChecks(items('found', 'found', 'found', 'found', 'found'), fake.io, { maxPerBatch });
    expect(fake.asked.map((b) => b.length)).toEqual(sizes);
  });
});
