import { FakeRouter } from '../support/fake-router';
import { postJson, SMALL_CHART, startTestHub } from '../support/hub';

const LEG = 'answer:gemma-4-12b~off~temp0';
const body = (q: string) => ({ model: LEG, messages: [{ role: 'user', content: SMALL_CHART }, { role: 'user', content: q }] });
const OK = JSON.stringify({ answer: 'ok [1]', citations: [1], blocks: [] });

describe('router slot semaphore through HTTP (ROUTER_MAX_CONCURRENCY=1)', () => {
  let router: FakeRouter;
  beforeAll(async () => {
    router = new FakeRouter({ models: ['gemma-4-12b'] });
    await router.start();
  });
  afterAll(() => router.stop());
  beforeEach(() => router.reset());

  test('20 concurrent leg requests are served one at a time with no failures', async () => {
    const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, ROUTER_MAX_CONCURRENCY: '1', ROUTER_MAX_QUEUE: '64' });
    try {
      router.script({ content: OK, delayMs: 15 });
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => postJson(`${hub.url}/v1/chat/completions`, body(`question ${i}`))));
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(router.chatRequests()).toHaveLength(20);
      expect(router.maxConcurrentChats).toBe(1);
    } finally {
      await hub.close();
    }
  });

  test('with a full queue the excess get 503 router_busy with Retry-After', async () => {
    const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, ROUTER_MAX_CONCURRENCY: '1', ROUTER_MAX_QUEUE: '2' });
    try {
      router.script({ content: OK, delayMs: 300 });
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => postJson(`${hub.url}/v1/chat/completions`, body(`q${i}`))));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 200, 503, 503, 503]);
      for (const r of results.filter((x) => x.status === 503)) {
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        const wire = await r.json() as any;
        expect(wire.detail.code).toBe('router_busy');
        expect(wire.error.code).toBe('router_busy');
      }
      expect(router.maxConcurrentChats).toBe(1);
    } finally {
      await hub.close();
    }
  });

  test('a client that disconnects mid-call frees its slot: the next request proceeds', async () => {
    const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, ROUTER_MAX_CONCURRENCY: '1', ROUTER_MAX_QUEUE: '4' });
    try {
      router.script({ match: { contains: 'hang forever' }, fault: 'hang' }, { content: OK });
      const ac = new AbortController();
      const hung = postJson(`${hub.url}/v1/chat/completions`, body('hang forever'), { signal: ac.signal }).catch((e: Error) => e);
      await waitFor(() => router.openChats === 1);
      ac.abort();
      expect((await hung as Error).name).toBe('AbortError');
      await router.waitIdle(2000); // the hub aborted its router request
      const next = await postJson(`${hub.url}/v1/chat/completions`, body('next one'));
      expect(next.status).toBe(200);
    } finally {
      await hub.close();
    }
  });

  test('a disconnected waiter leaves the queue without taking a slot', async () => {
    const hub = await startTestHub({ LLM_BASE_URL: router.baseUrl, ROUTER_MAX_CONCURRENCY: '1', ROUTER_MAX_QUEUE: '4' });
    try {
      router.script({ match: { contains: 'slow first' }, content: OK, delayMs: 400 }, { content: OK });
      const first = postJson(`${hub.url}/v1/chat/completions`, body('slow first'));
      await waitFor(() => router.openChats === 1);
      const ac = new AbortController();
      const waiter = postJson(`${hub.url}/v1/chat/completions`, body('gives up waiting'), { signal: ac.signal }).catch((e: Error) => e);
      await new Promise((r) => setTimeout(r, 50));
      ac.abort();
      expect((await waiter as Error).name).toBe('AbortError');
      expect((await first).status).toBe(200);
      const after = await postJson(`${hub.url}/v1/chat/completions`, body('after'));
      expect(after.status).toBe(200);
      const asked = router.chatRequests().map((r) => JSON.stringify(r.body.messages));
      expect(asked.some((m) => m.includes('gives up waiting'))).toBe(false);
    } finally {
      await hub.close();
    }
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}
