/**
 * The allocation benchmark's summary of a sampling heap profile (bench/support/alloc-sampler.ts): bytes
 * are charged to the innermost hub function on the stack, or, with no hub code on it, to their own
 * frame's module; and the sampler really measures this process's allocation.
 */
import { allocatedDuring, answerAllocation, startAllocationSampling, stopAllocationSampling, summarize } from '../../bench/support/alloc-sampler';

type Node = Parameters<typeof summarize>[0];

const frame = (functionName: string, url: string, selfSize = 0, children: Node[] = []): Node => ({ callFrame: { functionName, url, lineNumber: 9 }, selfSize, children });

describe('summarize', () => {
  const hub = '/tmp/mah-bench-hub-1/server/checks/temporal/parse.js';
  test.each<[string, Node, Array<[string, number]>]>([
    ["a hub function's own bytes", frame('(root)', '', 0, [frame('parseEvents', hub, 100)]), [['parseEvents (server/checks/temporal/parse.js:10)', 100]]],
    [
      'a builtin called from hub code is charged to the hub caller',
      frame('(root)', '', 0, [frame('parseEvents', hub, 0, [frame('exec', '', 40), frame('slice', '', 2)])]),
      [['parseEvents (server/checks/temporal/parse.js:10)', 42]],
    ],
    [
      'the innermost hub frame wins',
      frame('(root)', '', 0, [frame('run', '/w/server/engine/run.ts', 1, [frame('dep', '/w/node_modules/yaml/dist/x.js', 0, [frame('parse', '/w/server/profiles/catalog.ts', 5)])])]),
      [['parse (server/profiles/catalog.ts:10)', 5], ['run (server/engine/run.ts:10)', 1]],
    ],
    [
      'without hub code: the module of the frame',
      frame('(root)', '', 0, [frame('onHeaders', '/w/node_modules/undici/lib/core/request.js', 7), frame('x', '/w/node_modules/@scope/pkg/a.js', 3), frame('emit', 'node:events', 2), frame('(program)', '', 1)]),
      [['dep undici', 7], ['dep @scope/pkg', 3], ['node internals', 2], ['native', 1]],
    ],
    ['a package with a server/ folder is not hub code', frame('(root)', '', 0, [frame('f', '/w/node_modules/pkg/server/x.js', 4)]), [['dep pkg', 4]]],
  ])('%s', (_name, head, sites) => {
    const report = summarize(head);
    expect(report.sites.map((s) => [s.site, s.bytes])).toEqual(sites);
    expect(report.bytes).toBe(sites.reduce((sum, [, b]) => sum + b, 0));
  });
});

describe('the sampler', () => {
  test('measures what this process allocates, collected objects included', async () => {
    await startAllocationSampling();
    // About 16 MB of short-lived arrays, a few hundred kilobytes of them alive at any time.
    let live: number[][] = [];
    for (let i = 0; i < 2000; i++) {
      live.push(new Array<number>(1000).fill(i));
      if (live.length === 32) live = [];
    }
    const report = await stopAllocationSampling();
    expect(live.length).toBe(2000 % 32);
    expect(report.bytes).toBeGreaterThan(8 * 1024 * 1024);
  });

  test('a stop without a start, or a second start, is reported as an error, never thrown', async () => {
    expect((await answerAllocation('stop')).error).toMatch(/not running/);
    expect((await answerAllocation('start')).error).toBeUndefined();
    expect((await answerAllocation('start')).error).toMatch(/already running/);
    expect((await answerAllocation('stop')).error).toBeUndefined();
  });

  test("allocatedDuring fails with the child's error", async () => {
    const child = { ask: async <T>() => ({ type: 'alloc', bytes: 0, sites: [], error: 'no inspector' }) as T };
    await expect(allocatedDuring(child, async () => undefined)).rejects.toThrow('allocation sampler: no inspector');
  });
});
