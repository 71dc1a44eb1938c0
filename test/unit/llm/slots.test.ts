import { HubError } from '../../../server/errors';
import { SlotSemaphore } from '../../../server/llm/slots';

/** Lets queued promise callbacks run. */
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('SlotSemaphore', () => {
  it('grants up to capacity at once and queues the rest', async () => {
    const sem = new SlotSemaphore(2, 5);
    await sem.acquire();
    await sem.acquire();
    let third = false;
    void sem.acquire().then(() => (third = true));
    await tick();
    expect(third).toBe(false);
    expect(sem.state()).toEqual({ inFlight: 2, queued: 1, capacity: 2, maxQueue: 5 });
  });

  it('hands freed slots to waiters in FIFO order', async () => {
    const sem = new SlotSemaphore(1, 10);
    const first = await sem.acquire();
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const waiters = [1, 2, 3].map((n) =>
      sem.acquire().then((rel) => {
        order.push(n);
        releases.push(rel);
      }),
    );
    first();
    await tick();
    expect(order).toEqual([1]);
    releases[0]();
    await tick();
    releases[1]();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
    expect(sem.state()).toMatchObject({ inFlight: 1, queued: 0 });
    releases[2]();
    expect(sem.state()).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it('does not let a newcomer overtake queued waiters', async () => {
    const sem = new SlotSemaphore(1, 10);
    const rel = await sem.acquire();
    const order: string[] = [];
    void sem.acquire().then((r) => (order.push('queued'), r()));
    rel();
    void sem.acquire().then((r) => (order.push('newcomer'), r()));
    await tick();
    expect(order).toEqual(['queued', 'newcomer']);
  });

  it('answers router_busy with Retry-After when the queue is full', async () => {
    const sem = new SlotSemaphore(1, 1);
    await sem.acquire();
    void sem.acquire();
    const err = await sem.acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HubError);
    expect(err).toMatchObject({ code: 'router_busy', status: 503 });
    expect((err as HubError).headers['Retry-After']).toMatch(/^\d+$/);
    expect(sem.state().queued).toBe(1);
  });

  it('maxQueue 0 refuses to wait at all', async () => {
    const sem = new SlotSemaphore(1, 0);
    await sem.acquire();
    await expect(sem.acquire()).rejects.toMatchObject({ code: 'router_busy' });
  });

  it('an aborted waiter leaves the queue and the next waiter proceeds', async () => {
    const sem = new SlotSemaphore(1, 5);
    const holder = await sem.acquire();
    const ac = new AbortController();
    const aborted = sem.acquire(ac.signal);
    let nextGot = false;
    const next = sem.acquire().then((r) => {
      nextGot = true;
      return r;
    });
    expect(sem.state().queued).toBe(2);
    ac.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    expect(sem.state().queued).toBe(1);
    holder();
    const rel = await next;
    expect(nextGot).toBe(true);
    rel();
    expect(sem.state()).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it('rejects at once for an already-aborted signal', async () => {
    const sem = new SlotSemaphore(1, 5);
    const ac = new AbortController();
    ac.abort();
    await expect(sem.acquire(ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(sem.state()).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it('release is idempotent: a second call frees nothing', async () => {
    const sem = new SlotSemaphore(2, 5);
    const a = await sem.acquire();
    await sem.acquire();
    a();
    a();
    expect(sem.state().inFlight).toBe(1);
  });

  it('a double release never hands a waiter a second slot', async () => {
    const sem = new SlotSemaphore(1, 5);
    const a = await sem.acquire();
    const got: number[] = [];
    void sem.acquire().then(() => got.push(1));
    void sem.acquire().then(() => got.push(2));
    a();
    a();
    await tick();
    expect(got).toEqual([1]);
    expect(sem.state()).toMatchObject({ inFlight: 1, queued: 1 });
  });

  it('aborting one in-flight holder releases only its own slot', async () => {
    const sem = new SlotSemaphore(2, 5);
    // A holder that frees its slot when its own signal aborts (what the router client does).
    const hold = async (signal: AbortSignal): Promise<void> => {
      const rel = await sem.acquire(signal);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      rel();
    };
    const a = new AbortController();
    const b = new AbortController();
    const pa = hold(a.signal);
    const pb = hold(b.signal);
    await tick();
    expect(sem.state().inFlight).toBe(2);
    a.abort();
    await pa;
    expect(sem.state().inFlight).toBe(1);
    b.abort();
    await pb;
    expect(sem.state().inFlight).toBe(0);
  });

  it('rejects nonsensical sizes', () => {
    expect(() => new SlotSemaphore(0, 1)).toThrow(RangeError);
    expect(() => new SlotSemaphore(1, -1)).toThrow(RangeError);
  });
});
