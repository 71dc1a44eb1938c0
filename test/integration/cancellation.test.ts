import { FakeRouter } from '../support/fake-router';
import { postJson, startTestHub, traceLines } from '../support/hub';
import type { RunningHub } from '../../server/main';

const CHART = ['Patient records (most recent first):', '[1] (2026-03-02) Finding — Weight (kg): 71 kg', '[2] (2026-01-10) Finding — Weight (kg): 74 kg'].join('\n');
const ANSWER = JSON.stringify({ answer: 'Weight fell from 74 kg on 2026-01-10 [2] to 71 kg on 2026-03-02 [1].', citations: [2, 1], blocks: [] });
const CLAIMS = JSON.stringify({ claims: ['The latest weight is 71 kg [1].'] });

async function until(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function quiescent(hub: RunningHub, quietMs = 500, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const seen = hub.startedTurns();
    await new Promise((r) => setTimeout(r, quietMs));
    if (hub.startedTurns() === seen && hub.activeTurns() === 0) return;
    if (Date.now() > end) throw new Error('hub did not settle');
  }
}

/** A deterministic pseudo-random sequence, so a failure is reproducible. */
function lcg(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

describe('cancellation', () => {
  let router: FakeRouter;
  let hub: RunningHub;
  beforeAll(async () => {
    router = new FakeRouter({ models: ['gemma-4-12b'] });
    await router.start();
    hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, ROUTER_MAX_CONCURRENCY: '1', ROUTER_MAX_QUEUE: '512', HUB_SSE_HEARTBEAT_SECONDS: '0.1' });
  });
  afterAll(async () => {
    await hub.close();
    await router.stop();
  });

  test('200 staged and blocking requests aborted at random points leave no occupied slot and no running engine', async () => {
    router.script({ match: { contains: 'DIRECT ANSWER' }, content: CLAIMS, delayMs: 15 }, { content: ANSWER, delayMs: 10 });
    const rand = lcg(42);
    const runs = Array.from({ length: 200 }, async (_, i) => {
      const ac = new AbortController();
      // Spread over the whole run: turns queue behind one router slot, so aborts land in every stage.
      // One run in ten is never aborted, so completed turns are part of the mix however slow the machine.
      const abortAfter = Math.floor(rand() * 3000);
      const stream = i % 2 === 0;
      const timer = i % 10 === 5 ? undefined : setTimeout(() => ac.abort(), abortAfter);
      try {
        const res = await postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-bare', stream, messages: [{ role: 'user', content: CHART }, { role: 'user', content: `weight? ${i}` }] }, { signal: ac.signal });
        await res.text();
      } catch {
        // aborted by design
      } finally {
        clearTimeout(timer);
      }
    });
    await Promise.all(runs);
    // A loaded machine may still be reading requests the client already gave up on: wait until no new
    // turn has started for a while and none is running, so the count below is final.
    await quiescent(hub);
    await until(() => hub.routerSlots().inFlight === 0 && hub.routerSlots().queued === 0);
    await router.waitIdle(5000);
    expect(router.openChats).toBe(0);
    // Every turn left a trace line; cancelled ones say where they stopped and hold no slot.
    // Every turn that started (a request aborted before its body arrived never becomes one) left a trace line.
    const started = hub.startedTurns();
    // The 20 runs never aborted all became turns; how many aborted ones did depends on timing.
    expect(started).toBeGreaterThanOrEqual(20);
    await until(() => hub.trace.stats().written >= started);
    const lines = (await traceLines(hub)).filter((l) => /^weight\? \d+$/.test(l.question));
    expect(lines).toHaveLength(started);
    const cancelled = lines.filter((l) => l.outcome.status === 'cancelled');
    expect(cancelled.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.outcome.status === 'completed').length).toBeGreaterThan(0);
    // Which stages the random aborts land in depends on timing: the two tests below pin an abort during
    // the Answer and one during In-Depth by state.
    for (const l of lines) expect(l.router_slot_evidence.active).toBe(0);
    for (const l of lines) expect(l.router_slot_evidence.acquisitions).toBe(l.router_slot_evidence.releases);
  }, 60_000);

  test('a client that leaves while the Answer is with the router frees the slot; the trace says it stopped at the Answer', async () => {
    router.reset();
    router.script({ fault: 'hang', times: 1 });
    const ac = new AbortController();
    const call = postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-bare', stream: true, messages: [{ role: 'user', content: CHART }, { role: 'user', content: 'leave during the answer' }] }, { signal: ac.signal })
      .then((res) => res.text()).catch((err: Error) => err.name);
    await until(() => router.openChats === 1);
    ac.abort();
    expect(await call).toBe('AbortError');
    await router.waitIdle(3000);
    await until(() => hub.activeTurns() === 0 && hub.routerSlots().inFlight === 0);
    let line: Record<string, any> | undefined;
    // The trace line is written once the cancelled turn unwinds: polled a bounded number of times.
    for (let i = 0; i < 200 && !line; i++) {
      line = (await traceLines(hub)).find((l) => l.question === 'leave during the answer');
      if (!line) await new Promise((r) => setTimeout(r, 10));
    }
    expect(line?.outcome).toEqual({ status: 'cancelled', stopped_at: 'answer' });
    expect(line?.router_slot_evidence).toMatchObject({ acquisitions: 1, releases: 1, active: 0 });
  });

  test('a client that leaves during In-Depth frees the slot; the next request is served', async () => {
    router.reset();
    router.script({ match: { contains: 'DIRECT ANSWER' }, fault: 'hang' }, { content: ANSWER });
    const ac = new AbortController();
    const res = await postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-bare', stream: true, messages: [{ role: 'user', content: CHART }, { role: 'user', content: 'leave during in-depth' }] }, { signal: ac.signal });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('event: indepth_pending')) seen += new TextDecoder().decode((await reader.read()).value);
    await until(() => router.openChats === 1);
    ac.abort();
    await router.waitIdle(3000);
    await until(() => hub.activeTurns() === 0);
    router.reset();
    router.script({ match: { contains: 'DIRECT ANSWER' }, content: CLAIMS }, { content: ANSWER });
    const next = await postJson(`${hub.url}/v1/chat/completions`, { model: 'single-12b-bare', messages: [{ role: 'user', content: CHART }, { role: 'user', content: 'next' }] });
    expect(next.status).toBe(200);
    await until(() => hub.trace.stats().written > 0);
    const t = (await traceLines(hub)).find((l) => l.question === 'leave during in-depth')!;
    expect(t.outcome).toEqual({ status: 'cancelled', stopped_at: 'indepth' });
  });
});
