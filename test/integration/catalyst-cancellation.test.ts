/**
 * Cancellation of role calls (hub-contract §10.1, decision 5): a caller's disconnect aborts its own router
 * request and frees only its own slot. Bounded by counts and states, never by wall time.
 */
import fs from 'node:fs';
import { FakeRouter } from '../support/fake-router';
import { postJson, startTestHub, traceLines, useRouterAndHub } from '../support/hub';

const URL_PATH = '/v1/hub/query-profiles/catalyst-query-gemma-4-12b/roles/query_generate/generate';
const BODY = { messages: [{ role: 'user', content: '{"catalog":{},"question":"how many?"}' }] };

/** Polls a state up to `tries` times (the bound is a count of checks, not a deadline asserted on). */
async function until(check: () => boolean, tries = 500): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('state not reached');
}

/** A small deterministic PRNG so the "random points" are the same on every run. */
function prng(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

describe('role-call cancellation', () => {
  const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen2.5-14b'], env: { ROUTER_MAX_CONCURRENCY: '1', ROUTER_MAX_QUEUE: '64' } });

  // Its own router and hub: a request the hub aborted just as it was sent can still reach the router after the
  // test ends and take the next test's scripted reply, so the tests that pin a slot by state never share them.
  describe('at random points', () => {
    const ctx = useRouterAndHub({ models: ['gemma-4-12b', 'qwen2.5-14b'], env: { ROUTER_MAX_CONCURRENCY: '1', ROUTER_MAX_QUEUE: '64' } });

    test('50 role calls aborted at random points leave zero slots held, and every traced call freed exactly its own slots', async () => {
      ctx.router.script({ content: 'SELECT 1', chunkDelayMs: 2, delayMs: 3 });
      const random = prng(15);
      const started = ctx.hub.startedTurns();
      const calls: Array<Promise<{ status: number; content?: string; aborted?: boolean }>> = [];
      for (let i = 0; i < 50; i++) {
        const abort = new AbortController();
        calls.push(postJson(`${ctx.hub.url}${URL_PATH}`, BODY, { signal: abort.signal })
          .then(async (res) => ({ status: res.status, content: (((await res.json()) as any)).content as string | undefined }))
          .catch((err: Error) => ({ status: 0, aborted: err.name === 'AbortError' })));
        // Each call is inside the hub before its abort is armed, so the abort lands at a random point of
        // its life there: reading inventory, measuring, queued for the slot, or with the router.
        await until(() => ctx.hub.startedTurns() === started + i + 1);
        setTimeout(() => abort.abort(), Math.floor(random() * 40));
      }
      const outcomes = await Promise.all(calls);
      expect(outcomes.filter((o) => o.status === 0).length).toBeGreaterThan(0);
      for (const o of outcomes) if (o.status === 0) expect(o).toMatchObject({ aborted: true });
      // Every role call the hub accepted has finished (role calls count as running hub work).
      await until(() => ctx.hub.activeTurns() === 0 && ctx.router.openChats === 0);
      expect(ctx.hub.routerSlots()).toMatchObject({ inFlight: 0, queued: 0 });
      const lines = (await traceLines(ctx.hub)).filter((l) => l.event === 'catalyst_role_generate');
      expect(lines).toHaveLength(50);
      // Where each abort lands (queued, measuring, with the router) depends on timing, so only what holds at
      // every landing point is asserted here; the next test pins both landings (queue and router) by state.
      for (const l of lines) {
        expect(l.router_lock_released).toBe(true);
        expect(l.router_slot_evidence.active).toBe(0);
        expect(l.router_slot_evidence.acquisitions).toBeLessThanOrEqual(1);
        // A call the hub saw cancelled never answered with content.
        if (l.outcome === 'cancelled') expect(l.status).toBe(499);
      }
      expect(lines.some((l) => l.outcome === 'cancelled')).toBe(true);
      // Responses that did arrive are complete answers, never a cut one.
      for (const o of outcomes) if (o.status === 200) expect(o.content).toBe('SELECT 1');
    });
  });

  test("one caller's abort never releases another's slot", async () => {
    // A holds the only slot (the router never answers it); B and C queue behind it.
    ctx.router.script({ fault: 'hang', times: 1 }, { content: 'SELECT 1' });
    const a = new AbortController();
    const b = new AbortController();
    const callA = postJson(`${ctx.hub.url}${URL_PATH}`, BODY, { signal: a.signal }).catch((err: Error) => err.name);
    await until(() => ctx.router.openChats === 1);
    const callB = postJson(`${ctx.hub.url}${URL_PATH}`, BODY, { signal: b.signal }).catch((err: Error) => err.name);
    await until(() => ctx.hub.routerSlots().queued === 1);
    b.abort();
    expect(await callB).toBe('AbortError');
    await until(() => ctx.hub.routerSlots().queued === 0);
    // B left the queue; A still holds its slot and its router request is still open.
    expect(ctx.hub.routerSlots()).toMatchObject({ inFlight: 1, queued: 0 });
    expect(ctx.router.openChats).toBe(1);
    const callC = postJson(`${ctx.hub.url}${URL_PATH}`, BODY);
    await until(() => ctx.hub.routerSlots().queued === 1);
    expect(ctx.router.chatRequests()).toHaveLength(1);
    // A's abort frees A's slot, which goes to C: C completes with content.
    a.abort();
    expect(await callA).toBe('AbortError');
    const c = await callC;
    expect(c.status).toBe(200);
    expect((((await c.json()) as any)).content).toBe('SELECT 1');
    await until(() => ctx.hub.routerSlots().inFlight === 0);
    const lines = (await traceLines(ctx.hub)).filter((l) => l.event === 'catalyst_role_generate').slice(-3);
    const byOutcome = lines.map((l) => [l.outcome, l.router_slot_evidence]);
    expect(byOutcome).toEqual(expect.arrayContaining([
      ['cancelled', { acquisitions: 0, releases: 0, active: 0 }],
      ['cancelled', { acquisitions: 1, releases: 1, active: 0 }],
      ['succeeded', { acquisitions: 1, releases: 1, active: 0 }],
    ]));
  });

  test('warm cancels on disconnect: the router request is closed and the slot freed', async () => {
    ctx.router.script({ fault: 'hang', times: 1 });
    const abort = new AbortController();
    const warm = postJson(`${ctx.hub.url}${URL_PATH.replace('/generate', '/warm')}`, BODY, { signal: abort.signal }).catch((err: Error) => err.name);
    await until(() => ctx.router.openChats === 1);
    abort.abort();
    expect(await warm).toBe('AbortError');
    await until(() => ctx.router.openChats === 0 && ctx.hub.routerSlots().inFlight === 0);
    const [line] = (await traceLines(ctx.hub)).filter((l) => l.event === 'catalyst_role_warm').slice(-1);
    expect(line).toMatchObject({ outcome: 'cancelled', router_lock_released: true, router_slot_evidence: { acquisitions: 1, releases: 1, active: 0 } });
  });
});

describe('role calls at shutdown', () => {
  test('a role call still running at the drain limit is cancelled: 499 generation_cancelled, router request closed', async () => {
    const router = new FakeRouter({ models: ['gemma-4-12b', 'qwen2.5-14b'] });
    await router.start();
    const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl });
    try {
      router.script({ fault: 'hang' });
      const call = postJson(`${hub.url}${URL_PATH}`, BODY);
      await until(() => router.openChats === 1);
      // The role call counts as running work: the drain waits for it, then settles it.
      expect(await hub.shutdown(50)).toEqual({ settled: 1 });
      const res = await call;
      expect(res.status).toBe(499);
      const err = (await res.json()) as any;
      expect(err.detail.code).toBe('generation_cancelled');
      expect(err.error.code).toBe('generation_cancelled');
      await router.waitIdle(3000);
      expect(router.openChats).toBe(0);
    } finally {
      await router.stop();
      fs.rmSync(hub.traceDir, { recursive: true, force: true });
    }
  });
});
